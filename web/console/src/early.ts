/**
 * Sent inline with the console's page, before its bundle arrives: for a signed-in session, the requests of the page
 * asked for (first-requests.ts) go out at once, and the bundle's API client takes their answers (api/client.ts), so
 * the page's data and its code come over the network together instead of one after the other.
 */
import { EARLY, firstRequests, requestKey, type EarlyAnswers } from './first-requests.ts';
import { readSession } from './session.ts';

const session = readSession();
if (session) {
  const early: EarlyAnswers = { authorization: `Bearer ${session.token}`, answers: new Map() };
  for (const url of firstRequests(location.pathname.replace(/\/+$/, ''), new URLSearchParams(location.search))) {
    // A failure to reach the server is the page's own request's to report: the bundle asks again.
    early.answers.set(requestKey(url), fetch(url, { headers: { authorization: early.authorization, accept: 'application/json' } }).catch(() => undefined));
  }
  (globalThis as Record<string, unknown>)[EARLY] = early;
}
