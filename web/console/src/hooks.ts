import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
  reload: () => void;
  setData: (data: T) => void;
}

/**
 * Runs `load` when the page is rendered and whenever `deps` change; a slower earlier answer never overwrites a later
 * one. `reload` runs it again, keeping what is shown meanwhile (no flash while a list refreshes).
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: Error | undefined; loading: boolean }>({ data: undefined, error: undefined, loading: true });
  const latest = useRef(0);
  const run = useCallback(() => {
    const ticket = ++latest.current;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => {
        if (ticket === latest.current) setState({ data, error: undefined, loading: false });
      },
      (error: unknown) => {
        if (ticket === latest.current) setState((previous) => ({ data: previous.data, error: error instanceof Error ? error : new Error(String(error)), loading: false }));
      },
    );
  // The caller names what the load depends on.
  }, deps);
  // Started as the page is put together rather than after it is first painted: the request is on its way a frame sooner.
  useLayoutEffect(run, [run]);
  const setData = useCallback((data: T) => setState({ data, error: undefined, loading: false }), []);
  return { ...state, reload: run, setData };
}

/** Calls `tick` every `intervalMs` while `active`, and once more as soon as it stops being active. */
export function useInterval(tick: () => void, intervalMs: number, active: boolean): void {
  const saved = useRef(tick);
  saved.current = tick;
  useEffect(() => {
    if (!active) return undefined;
    const timer = setInterval(() => saved.current(), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs, active]);
}
