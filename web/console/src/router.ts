import { useEffect, useState } from 'preact/hooks';
import { forgetEarlyAnswers } from './first-requests.ts';

/** Where the console lives; every page is a path below it, so a link can be shared and a reload lands on it. */
export const BASE = '/app';

const listeners = new Set<() => void>();
let inPage = false;
let shownPath = location.pathname;
const notify = () => {
  forgetEarlyAnswers();
  // Another page, not the same page with other filters.
  if (location.pathname !== shownPath) inPage = true;
  shownPath = location.pathname;
  for (const listener of listeners) listener();
};

/** Whether the page now shown was reached from another page of the console (once per page: it resets). */
export function takeInPageNavigation(): boolean {
  const was = inPage;
  inPage = false;
  return was;
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === location.pathname + location.search) return;
  history[options.replace ? 'replaceState' : 'pushState'](null, '', to);
  notify();
}

/**
 * Same-origin links into the console are followed in the page, without a reload; a click with a modifier key or on
 * a link with a target is left to the browser (a new tab).
 */
export function followLinksInPage(root: HTMLElement): void {
  root.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const anchor = (event.target as Element | null)?.closest('a');
    if (!anchor || anchor.target || anchor.hasAttribute('download') || anchor.origin !== location.origin) return;
    if (!(anchor.pathname === BASE || anchor.pathname.startsWith(`${BASE}/`))) return;
    event.preventDefault();
    navigate(anchor.pathname + anchor.search);
  });
  window.addEventListener('popstate', notify);
}

export interface Location {
  path: string;
  query: URLSearchParams;
}

export function useLocation(): Location {
  const [, setVersion] = useState(0);
  useEffect(() => {
    const listener = () => setVersion((version) => version + 1);
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }, []);
  return { path: location.pathname.replace(/\/+$/, '') || '/', query: new URLSearchParams(location.search) };
}

/** `pattern` like `/app/calls/:id` against a path: the named segments, or null when it does not match. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const wanted = pattern.split('/');
  const given = path.split('/');
  if (wanted.length !== given.length) return null;
  const params: Record<string, string> = {};
  for (const [index, segment] of wanted.entries()) {
    const actual = given[index] ?? '';
    if (segment.startsWith(':')) params[segment.slice(1)] = decodeURIComponent(actual);
    else if (segment !== actual) return null;
  }
  return params;
}

/** The current path with `changes` applied to its query (an empty value removes the key). */
export function withQuery(changes: Record<string, string | number | undefined>): string {
  const query = new URLSearchParams(location.search);
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined || value === '') query.delete(key);
    else query.set(key, String(value));
  }
  const search = query.toString();
  return `${location.pathname}${search ? `?${search}` : ''}`;
}

/** `path` with a query of the form's non-empty fields among `names` (a filter form's submission). */
export function filterAddress(path: string, form: HTMLFormElement, names: readonly string[]): string {
  const data = new FormData(form);
  const query = new URLSearchParams();
  for (const name of names) {
    const value = data.get(name);
    if (typeof value === 'string' && value.trim()) query.set(name, value.trim());
  }
  return `${path}${query.size ? `?${query.toString()}` : ''}`;
}
