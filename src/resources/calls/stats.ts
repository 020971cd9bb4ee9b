import type { Knex } from 'knex';
import { microsToUsd } from '../../lib/money.ts';
import type { CallStatus } from './model.ts';

/** Statuses of calls someone picked up, and of calls nobody did; a call still ringing is neither yet. */
const ANSWERED: readonly CallStatus[] = ['in-progress', 'ended', 'completed', 'ended_by_customer', 'ended_by_assistant'];
const UNANSWERED: readonly CallStatus[] = ['busy', 'no-answer', 'failed'];
/** The latency the caller feels: from the end of their speech to the reply's first audio. */
const FELT_LATENCY = 'end_of_speech_to_first_audio_ms';

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
const whole = (value: unknown) => (value === null || value === undefined ? null : Math.round(Number(value)));

/**
 * The account's calls over the last `days` UTC days up to today: per day and in all, counts and answer rate from
 * the counting tables (migrations/20261123000005_count_calls.ts), minutes and the felt latency's percentiles from
 * the calls of those days (read through the `(user_id, id)` index from the period's first call id), and spend from
 * the ledger. Rows group by day with a grand total in the same statement (`grouping sets`).
 */
export async function callStats(knex: Knex, userId: number, days: number, now: Date): Promise<CallStats> {
  const from = dayOf(now, days - 1);
  const to = dayOf(now);
  const start = `${from}T00:00:00Z`;
  const byDay = new Map<string, PeriodStats>();
  for (let index = days - 1; index >= 0; index--) byDay.set(dayOf(now, index), empty());
  const total = empty();
  const row = (day: string | null) => (day === null ? total : byDay.get(day));

  const counts: { day: string; status: CallStatus; calls: string; lowest: string }[] = await knex('call_day_counts').where('user_id', userId).where('day', '>=', from)
    .select(knex.raw("to_char(day, 'YYYY-MM-DD') as day"), 'status', knex.raw('sum(calls)::bigint as calls'), knex.raw('min(first_id) as lowest'))
    .groupBy('day', 'status');
  let firstId = Number.POSITIVE_INFINITY;
  for (const count of counts) {
    const calls = Number(count.calls);
    firstId = Math.min(firstId, Number(count.lowest));
    for (const target of [row(count.day), total]) {
      if (!target) continue;
      target.calls += calls;
      if (ANSWERED.includes(count.status)) target.answered += calls;
      if (UNANSWERED.includes(count.status)) target.unanswered += calls;
    }
  }

  if (Number.isFinite(firstId)) {
    const periodCalls = (query: Knex.QueryBuilder) => query.where('c.user_id', userId).where('c.id', '>=', firstId).where('c.created_at', '>=', start);
    const DAY = "to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD')";
    const day = knex.raw(`${DAY} as day`);
    const byDayAndInAll = `grouping sets ((${DAY}), ())`;
    const [talked, latency] = await Promise.all([
      periodCalls(knex('calls as c')).select(day, knex.raw('sum(c.duration)::bigint as seconds'))
        .groupByRaw(byDayAndInAll) as Promise<{ day: string | null; seconds: string }[]>,
      periodCalls(knex('calls as c').crossJoin(knex.raw('lateral jsonb_array_elements(c.turns) as t')))
        .whereRaw("t->'metrics'->>? is not null", [FELT_LATENCY])
        .select(day,
          knex.raw("percentile_cont(0.5) within group (order by (t->'metrics'->>?)::float8) as p50", [FELT_LATENCY]),
          knex.raw("percentile_cont(0.95) within group (order by (t->'metrics'->>?)::float8) as p95", [FELT_LATENCY]),
          knex.raw('count(*)::bigint as replies'))
        .groupByRaw(byDayAndInAll) as Promise<{ day: string | null; p50: number | null; p95: number | null; replies: string }[]>,
    ]);
    for (const item of talked) {
      const target = row(item.day);
      if (target) target.minutes = Math.round((Number(item.seconds) / 60) * 10) / 10;
    }
    for (const item of latency) {
      const target = row(item.day);
      if (!target) continue;
      target.latency_p50_ms = whole(item.p50);
      target.latency_p95_ms = whole(item.p95);
      target.replies = Number(item.replies);
    }
  }

  const LEDGER_DAY = "to_char(created_at at time zone 'UTC', 'YYYY-MM-DD')";
  const spent: { day: string | null; micros: string }[] = await knex('balance_transactions').where('user_id', userId).where('created_at', '>=', start).where('amount_micros', '<', 0)
    .select(knex.raw(`${LEDGER_DAY} as day`), knex.raw('-sum(amount_micros)::bigint as micros'))
    .groupByRaw(`grouping sets ((${LEDGER_DAY}), ())`);
  for (const item of spent) {
    const target = row(item.day);
    if (target) target.spend = microsToUsd(Number(item.micros));
  }

  return { from, to, total, days: [...byDay].map(([date, stats]) => ({ date, ...stats })) };
}
