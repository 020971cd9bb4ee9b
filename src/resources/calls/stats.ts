import type { Knex } from 'knex';
import { microsToUsd } from '../../lib/money.ts';
import type { CallStatus } from './model.ts';

/** Statuses of calls someone picked up, and of calls nobody did; a call still ringing is neither yet. */
const ANSWERED: readonly CallStatus[] = ['in-progress', 'ended', 'completed', 'ended_by_customer', 'ended_by_assistant'];
const UNANSWERED: readonly CallStatus[] = ['busy', 'no-answer', 'failed'];

export interface PeriodStats {
  calls: number;
  answered: number;
  unanswered: number;
  /** Minutes talked (the calls' billed seconds / 60). */
  minutes: number;
  /** USD charged to the balance: calls, chats, messages, numbers. */
  spend: number;
  /** Percentiles of the caller-felt latency over the assistant's replies; null without a measured reply. */
  latency_p50_ms: number | null;
  latency_p95_ms: number | null;
  replies: number;
}

export interface CallStats {
  from: string;
  to: string;
  total: PeriodStats;
  days: (PeriodStats & { date: string })[];
}

const dayOf = (date: Date, minusDays = 0) => new Date(date.getTime() - minusDays * 86_400_000).toISOString().slice(0, 10);
const empty = (): PeriodStats => ({ calls: 0, answered: 0, unanswered: 0, minutes: 0, spend: 0, latency_p50_ms: null, latency_p95_ms: null, replies: 0 });

/**
 * A period's replies and, for each percentile, the latencies at the positions around it in the sorted replies (no
 * underscores: the snake-case mapper would rename them).
 */
interface Bracket {
  replies: string;
  low50: string | null;
  high50: string | null;
  low95: string | null;
  high95: string | null;
}

/** `percentile_cont`: the value at `fraction` of the way through the sorted values, between the two nearest. */
function interpolated(fraction: number, replies: number, low: string | null, high: string | null): number | null {
  if (replies === 0 || low === null || high === null) return null;
  const position = fraction * (replies - 1);
  return Math.round(Number(low) + (Number(high) - Number(low)) * (position - Math.floor(position)));
}

/**
 * The account's calls over the last `days` UTC days up to today, per day and in all: counts and answer rate from
 * the counting tables (migrations/20261123000005_count_calls.ts), minutes, the felt latency's percentiles and spend
 * from the daily rollups (migrations/20261210310001_roll_up_call_stats.ts), each a grand total and its days in one
 * statement (`grouping sets`). The percentiles are exact (`percentile_cont` over every reply): the rollup counts the
 * replies of each whole-millisecond latency, and the two latencies around each percentile's position are picked
 * from the running counts.
 */
export async function callStats(knex: Knex, userId: number, days: number, now: Date): Promise<CallStats> {
  const from = dayOf(now, days - 1);
  const to = dayOf(now);
  const byDay = new Map<string, PeriodStats>();
  for (let index = days - 1; index >= 0; index--) byDay.set(dayOf(now, index), empty());
  const total = empty();
  const row = (day: string | null) => (day === null ? total : byDay.get(day));
  const DAY = "to_char(day, 'YYYY-MM-DD') as day";
  const period = (table: string) => knex(table).where('user_id', userId).where('day', '>=', from);

  const [counts, talked, spent, latency] = await Promise.all([
    period('call_day_counts').select(knex.raw(DAY), 'status', knex.raw('sum(calls)::bigint as calls')).groupBy('day', 'status') as Promise<{ day: string; status: CallStatus; calls: string }[]>,
    period('call_day_seconds').select(knex.raw(DAY), knex.raw('sum(seconds)::bigint as seconds')).groupByRaw('grouping sets ((day), ())') as Promise<{ day: string | null; seconds: string }[]>,
    period('ledger_day_spend').select(knex.raw(DAY), knex.raw('sum(micros)::bigint as micros')).groupByRaw('grouping sets ((day), ())') as Promise<{ day: string | null; micros: string }[]>,
    knex.raw(`
      with counted as (
        select ${DAY}, latency_ms, sum(replies) as replies from call_day_latencies
        where user_id = ? and day >= ? and replies > 0 group by grouping sets ((day, latency_ms), (latency_ms))
      ), running as (
        select day, latency_ms, sum(replies) over (partition by day order by latency_ms) as upto, sum(replies) over (partition by day) as replies from counted
      )
      select day, max(replies)::bigint as replies,
        min(latency_ms) filter (where upto > floor(0.5 * (replies - 1))) as low50, min(latency_ms) filter (where upto > ceil(0.5 * (replies - 1))) as high50,
        min(latency_ms) filter (where upto > floor(0.95 * (replies - 1))) as low95, min(latency_ms) filter (where upto > ceil(0.95 * (replies - 1))) as high95
      from running group by day`, [userId, from]) as Promise<{ rows: (Bracket & { day: string | null })[] }>,
  ]);

  for (const count of counts) {
    const calls = Number(count.calls);
    for (const target of [row(count.day), total]) {
      if (!target) continue;
      target.calls += calls;
      if (ANSWERED.includes(count.status)) target.answered += calls;
      if (UNANSWERED.includes(count.status)) target.unanswered += calls;
    }
  }
  for (const item of talked) {
    const target = row(item.day);
    if (target) target.minutes = Math.round((Number(item.seconds) / 60) * 10) / 10;
  }
  for (const item of spent) {
    const target = row(item.day);
    if (target) target.spend = microsToUsd(Number(item.micros));
  }
  for (const item of latency.rows) {
    const target = row(item.day);
    if (!target) continue;
    target.replies = Number(item.replies);
    target.latency_p50_ms = interpolated(0.5, target.replies, item.low50, item.high50);
    target.latency_p95_ms = interpolated(0.95, target.replies, item.low95, item.high95);
  }

  return { from, to, total, days: [...byDay].map(([date, stats]) => ({ date, ...stats })) };
}
