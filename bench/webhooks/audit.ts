/**
 * What arrived, against what was produced, for the webhook bench and drill: each produced call's event must have
 * arrived exactly once, signed; the delivery log says how many attempts each took and how it ended.
 */
import type { Knex } from 'knex';
import { percentile } from '../percentile.ts';
import type { EndedCall } from './post-call.ts';
import type { Arrival } from './receiver.ts';

export interface WebhookAudit {
  produced: number;
  receivedOnce: number;
  /** Events that arrived more than once, and the extra copies in all. */
  duplicated: number;
  extraCopies: number;
  lost: number;
  /** Copies whose signature did not verify against the account's secret. */
  unsigned: number;
  /** Events naming a call that was not produced, or two events for one call. */
  strays: number;
  /** Call end → first arrival of its event, ascending, in ms. */
  delaysMs: number[];
  firstArrival: number;
  lastArrival: number;
  attempts: { mean: number; max: number; tally: Map<number, number> };
  statuses: Map<string, number>;
}

export async function auditWebhooks(knex: Knex, produced: EndedCall[], arrivals: Map<string, Arrival[]>): Promise<WebhookAudit> {
  const endedAt = new Map(produced.map((call) => [call.callId, call.endedAt]));
  const eventsOfCall = new Map<number, Arrival[][]>();
  let strays = 0;
  let unsigned = 0;
  for (const copies of arrivals.values()) {
    const callId = copies[0]!.callId;
    unsigned += copies.filter((copy) => !copy.signed).length;
    if (!endedAt.has(callId) || copies.some((copy) => copy.callId !== callId)) strays++;
    eventsOfCall.set(callId, [...(eventsOfCall.get(callId) ?? []), copies]);
  }
  const delaysMs: number[] = [];
  let receivedOnce = 0;
  let duplicated = 0;
  let extraCopies = 0;
  let lost = 0;
  for (const call of produced) {
    const events = eventsOfCall.get(call.callId) ?? [];
    if (events.length === 0) {
      lost++;
      continue;
    }
    if (events.length > 1) strays += events.length - 1;
    const copies = events.flat();
    if (copies.length === 1) receivedOnce++;
    else {
      duplicated++;
      extraCopies += copies.length - 1;
    }
    delaysMs.push(Math.min(...copies.map((copy) => copy.at)) - call.endedAt);
  }
  delaysMs.sort((a, b) => a - b);
  const all = [...arrivals.values()].flat().map((copy) => copy.at);

  const rows: { status: string; attempts: number }[] = [];
  const ids = produced.map((call) => call.callId);
  for (let from = 0; from < ids.length; from += 1000) {
    rows.push(...await knex('webhook_deliveries').whereIn('callId', ids.slice(from, from + 1000)).select('status', 'attempts'));
  }
  const statuses = new Map<string, number>();
  const tally = new Map<number, number>();
  for (const row of rows) {
    statuses.set(row.status, (statuses.get(row.status) ?? 0) + 1);
    tally.set(row.attempts, (tally.get(row.attempts) ?? 0) + 1);
  }
  const attemptCounts = rows.map((row) => row.attempts);
  return {
    produced: produced.length, receivedOnce, duplicated, extraCopies, lost, unsigned, strays, delaysMs,
    firstArrival: Math.min(...all), lastArrival: Math.max(...all),
    attempts: { mean: attemptCounts.reduce((sum, count) => sum + count, 0) / Math.max(attemptCounts.length, 1), max: Math.max(0, ...attemptCounts), tally },
    statuses,
  };
}

/** Whether the audit shows a fault: an event lost, duplicated, unsigned or stray, or a delivery not delivered. */
export function auditFailed(audit: WebhookAudit): boolean {
  return audit.lost > 0 || audit.duplicated > 0 || audit.unsigned > 0 || audit.strays > 0 || audit.receivedOnce !== audit.produced
    || audit.statuses.get('delivered') !== audit.produced;
}

const tallyText = <K>(tally: Map<K, number>) => [...tally].sort(([a], [b]) => String(a).localeCompare(String(b), 'en', { numeric: true }))
  .map(([key, count]) => `${String(key)}: ${count}`).join(', ');

/** The audit's lines, as both scripts print them. */
export function auditLines(audit: WebhookAudit): string[] {
  const ms = (value: number) => (Number.isFinite(value) ? `${Math.round(value)} ms` : '–');
  return [
    `events produced ${audit.produced}; received exactly once ${audit.receivedOnce}; duplicated ${audit.duplicated} (${audit.extraCopies} extra copies); ` +
      `lost ${audit.lost}; bad signatures ${audit.unsigned}; strays ${audit.strays}`,
    `delay from call end (ended_at) to the receiver: p50 ${ms(percentile(audit.delaysMs, 50))} / p95 ${ms(percentile(audit.delaysMs, 95))} / ` +
      `max ${ms(audit.delaysMs.at(-1) ?? Number.NaN)}`,
    `attempts per delivery: mean ${audit.attempts.mean.toFixed(2)}, max ${audit.attempts.max} (deliveries by attempts: ${tallyText(audit.attempts.tally)}); ` +
      `delivery log: ${tallyText(audit.statuses)}`,
  ];
}
