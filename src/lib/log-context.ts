import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Fields every log line carries while a piece of work runs (a Temporal activity's workflow and run ids), for
 * code whose logger was made before the work began: the root logger adds them to each line (logger.ts).
 */
const store = new AsyncLocalStorage<Record<string, unknown>>();

/** Runs `work` with `fields` added to the log lines written meanwhile, the outer fields kept. */
export function withLogContext<T>(fields: Record<string, unknown>, work: () => T): T {
  return store.run({ ...store.getStore(), ...fields }, work);
}

/** The fields of the work running now; none outside any. */
export function currentLogContext(): Record<string, unknown> {
  return store.getStore() ?? {};
}
