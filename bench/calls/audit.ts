/**
 * What the phone-call bench and drill check once their calls have settled, from the database and the sandbox
 * carrier: every call in a final status, one ledger entry for each call that cost something and none for the
 * others, no call dialed twice, and no concurrent-call slot still held.
 */
import type { Knex } from 'knex';
import { liveCalls } from '../../src/billing/live-calls.ts';
import type { ScriptedCallee } from '../../src/simulators/sandbox-carrier/callees.ts';
import type { CarrierCall, sandboxCarrierApi } from './callees.ts';

export interface PlacedCall {
  callId: number;
  /** The number called: a number of this call's own. */
  to: string;
  callee: ScriptedCallee;
}

interface CallRow {
  id: number;
  status: string;
  endedAt: Date | null;
  answeredAt: Date | null;
  providerCallId: string | null;
  totalCostMicros: number | null;
}

export interface AuditedCall extends PlacedCall {
  status: string;
  ended: boolean;
  costMicros: number;
  ledgerEntries: number;
  /** The carrier's calls to the number: one per dial. */
  dials: CarrierCall[];
  /** What is wrong with it; empty when nothing is. */
  violations: string[];
}

const finalStatuses = new Set(['completed', 'ended', 'ended_by_customer', 'ended_by_assistant', 'failed', 'busy', 'no-answer']);

/** Waits until none of `callIds` is live, for at most `ms`; returns the ids still live then. */
export async function settle(knex: Knex, callIds: number[], ms: number): Promise<number[]> {
  const until = Date.now() + ms;
  for (;;) {
    const live = await knex('calls').whereIn('id', callIds).whereNull('endedAt').pluck<number[]>('id');
    if (live.length === 0 || Date.now() >= until) return live.map(Number);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

export async function auditCalls(knex: Knex, carrier: ReturnType<typeof sandboxCarrierApi>, placed: PlacedCall[]): Promise<AuditedCall[]> {
  const ids = placed.map((call) => call.callId);
  const rows = new Map((await knex('calls').whereIn('id', ids)
    .select<CallRow[]>('id', 'status', 'endedAt', 'answeredAt', 'providerCallId', 'totalCostMicros')).map((row) => [Number(row.id), row]));
  const entries = new Map<string, { count: number; micros: number }>();
  for (const entry of await knex('balance_transactions').whereIn('idempotencyKey', ids.map((id) => `call-${id}`))
    .select<{ idempotencyKey: string; amountMicros: number }[]>('idempotencyKey', 'amountMicros')) {
    const seen = entries.get(entry.idempotencyKey) ?? { count: 0, micros: 0 };
    entries.set(entry.idempotencyKey, { count: seen.count + 1, micros: seen.micros + Number(entry.amountMicros) });
  }
  const audited: AuditedCall[] = [];
  for (const call of placed) {
    const row = rows.get(call.callId);
    const dials = await carrier.callsTo(call.to);
    const ledger = entries.get(`call-${call.callId}`) ?? { count: 0, micros: 0 };
    const cost = Number(row?.totalCostMicros ?? 0);
    const violations: string[] = [];
    if (!row) violations.push('the call is gone');
    else if (!row.endedAt || !finalStatuses.has(row.status)) violations.push(`left ${row.status}${row.endedAt ? ' (ended)' : ', holding a slot'}`);
    if (cost > 0 && ledger.count !== 1) violations.push(`cost ${cost} µ$ with ${ledger.count} ledger entries`);
    if (cost > 0 && ledger.micros !== -cost) violations.push(`ledger ${ledger.micros} µ$ for a cost of ${cost} µ$`);
    if (cost === 0 && ledger.count > 0) violations.push(`${ledger.count} ledger entries for a call that cost nothing`);
    if (row && !row.answeredAt && cost > 0) violations.push('charged without an answer');
    if (dials.length > 1) violations.push(`dialed ${dials.length} times`);
    if (row?.providerCallId && !dials.some((dial) => dial.sid === row.providerCallId)) violations.push(`its carrier call ${row.providerCallId} is not one the carrier placed to ${call.to}`);
    audited.push({
      ...call, status: row?.status ?? 'gone', ended: Boolean(row?.endedAt), costMicros: cost, ledgerEntries: ledger.count, dials, violations,
    });
  }
  return audited;
}

/** The owner's concurrent-call slots held now: its calls not yet ended. */
export async function openSlots(knex: Knex, userId: number): Promise<number> {
  const [row] = await liveCalls(knex, userId).count<{ count: string }[]>('id as count');
  return Number(row?.count ?? 0);
}

/** `status × n` counts, most frequent first. */
export function tally(values: string[]): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]).map(([value, n]) => `${value} × ${n}`).join(', ');
}
