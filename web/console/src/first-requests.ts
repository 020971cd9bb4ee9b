/**
 * The API requests a page makes first, known from its address alone, so that they can be sent while the console's
 * bundle is still on its way (early.ts sends them; api/client.ts takes their answers instead of asking again). Only
 * the pages whose data is the page: the calls list, a call, the overview.
 */
import { queryOf } from './pages/calls-query.ts';

/** The same request whatever the order of its query's parameters or how they are escaped. */
export function requestKey(url: string): string {
  const parsed = new URL(url, location.origin);
  return `${parsed.pathname}?${[...parsed.searchParams].map(([name, value]) => `${name}=${value}`).sort().join('&')}`;
}

const withQuery = (path: string, query: Record<string, string | number>) =>
  `${path}?${new URLSearchParams(Object.entries(query).map(([name, value]) => [name, String(value)])).toString()}`;

/** The API addresses (below `/api`) of the first requests of the page at `path` with `search`. */
export function firstRequests(path: string, search: URLSearchParams): string[] {
  if (path === '/app/calls') return [withQuery('/api/user/calls', queryOf(search))];
  const call = /^\/app\/calls\/(\d+)$/.exec(path)?.[1];
  if (call) return [`/api/user/calls/${call}`, withQuery('/api/user/webhook-deliveries', { call_id: call, per_page: 50 })];
  if (path === '/app/overview') return ['/api/user/me', withQuery('/api/user/calls/stats', { days: 30 })];
  return [];
}

/**
 * What early.ts leaves in the global `EARLY`: the answers on their way by `requestKey` (undefined where the server
 * could not be reached: the page asks again), and the authorization they were sent with.
 */
export const EARLY = 'parleyEarly';
export interface EarlyAnswers {
  authorization: string;
  answers: Map<string, Promise<Response | undefined>>;
}

/** Early answers are for the page first shown: once the address changes, a request of the same key asks anew. */
export function forgetEarlyAnswers(): void {
  delete (globalThis as Record<string, unknown>)[EARLY];
}
