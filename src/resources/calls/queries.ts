import type { Knex } from 'knex';
import { pageWindow, type PageRequest } from '../../lib/pagination.ts';
import type { CallRecord, CallStatus, CallType } from './model.ts';

/** The list's filters, checked and normalised (service.ts). */
export interface CallFilters {
  status?: CallStatus | undefined;
  type?: CallType | undefined;
  /** E.164, with its `+`. */
  phoneNumber?: string | undefined;
  assistantId?: number | undefined;
  campaignId?: number | undefined;
  /** Inclusive UTC days, `YYYY-MM-DD`. */
  dateFrom?: string | undefined;
  dateTo?: string | undefined;
}

interface Counted {
  total: number;
  /** Every matching call has an id in these bounds (see migrations/20261123000003_count_calls.ts). */
  idBounds?: { first: number; last: number };
}

function addDays(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

const monthOf = (day: string) => `${day.slice(0, 7)}-01`;
const nextMonth = (day: string) => monthOf(addDays(monthOf(day), 31));

/**
 * An inclusive range of days as the whole months inside it (`from` inclusive, `until` exclusive, first days
 * of months; either open) and the inclusive day ranges left at its edges.
 */
export function splitDays(from: string | undefined, to: string | undefined): {
  months?: { from?: string | undefined; until?: string | undefined };
  days: { from?: string | undefined; to?: string | undefined }[];
} {
  const monthsFrom = from === undefined || from === monthOf(from) ? from : nextMonth(from);
  const monthsUntil = to === undefined ? undefined : monthOf(addDays(to, 1));
  if (monthsFrom !== undefined && monthsUntil !== undefined && monthsFrom >= monthsUntil) return { days: [{ from, to }] };
  const days = [];
  if (from !== undefined && monthsFrom !== undefined && from < monthsFrom) days.push({ from, to: addDays(monthsFrom, -1) });
  if (to !== undefined && monthsUntil !== undefined && monthsUntil <= to) days.push({ from: monthsUntil, to });
  return { months: { from: monthsFrom, until: monthsUntil }, days };
}

/** The filters the counting tables share with `calls` (0 stands for no assistant or campaign there, never a filter value). */
function whereEqualities(query: Knex.QueryBuilder, filters: CallFilters): Knex.QueryBuilder {
  if (filters.status) query.where('status', filters.status);
  if (filters.type) query.where('type', filters.type);
  if (filters.assistantId) query.where('assistant_id', filters.assistantId);
  if (filters.campaignId) query.where('campaign_id', filters.campaignId);
  return query;
}

function whereCalls(query: Knex.QueryBuilder, userId: number, filters: CallFilters, counted?: Counted): Knex.QueryBuilder {
  whereEqualities(query.where('user_id', userId), filters);
  if (filters.phoneNumber) query.where('client_phone_number', filters.phoneNumber);
  if (filters.dateFrom) query.where('created_at', '>=', `${filters.dateFrom}T00:00:00Z`);
  if (filters.dateTo) query.where('created_at', '<', `${addDays(filters.dateTo, 1)}T00:00:00Z`);
  if (counted?.idBounds) query.whereBetween('id', [counted.idBounds.first, counted.idBounds.last]);
  return query;
}

/** The rows of the counting tables that together count the matching calls exactly once. */
function countingRows(knex: Knex, userId: number, filters: CallFilters): Knex.QueryBuilder[] {
  const rows = (table: string) => whereEqualities(knex(table).where('user_id', userId), filters).select('calls', 'first_id', 'last_id');
  if (!filters.dateFrom && !filters.dateTo) return [rows('call_counts')];
  const { months, days } = splitDays(filters.dateFrom, filters.dateTo);
  const parts = days.map((range) => {
    const query = rows('call_day_counts');
    if (range.from) query.where('day', '>=', range.from);
    if (range.to) query.where('day', '<=', range.to);
    return query;
  });
  if (months) {
    const query = rows('call_month_counts');
    if (months.from) query.where('month', '>=', months.from);
    if (months.until) query.where('month', '<', months.until);
    parts.push(query);
  }
  return parts;
}

/**
 * The exact number of the user's calls that match. A phone number picks few calls, counted from its index;
 * otherwise the trigger-kept counts answer, with bounds on the ids of the matching calls.
 */
async function countCalls(knex: Knex, userId: number, filters: CallFilters): Promise<Counted> {
  if (filters.phoneNumber) {
    const rows: { total: number }[] = await whereCalls(knex('calls'), userId, filters).count({ total: '*' });
    return { total: Number(rows[0]?.total ?? 0) };
  }
  const [first, ...others] = countingRows(knex, userId, filters);
  const parts = others.length > 0 ? (first as Knex.QueryBuilder).unionAll(others) : first as Knex.QueryBuilder;
  const rows: { total: number; first: number | null; last: number | null }[] = await knex.from(parts.as('parts'))
    .select(knex.raw('coalesce(sum(calls), 0)::bigint as total, min(first_id) as first, max(last_id) as last'));
  const row = rows[0];
  if (!row || row.total === 0 || row.first === null || row.last === null) return { total: 0 };
  return { total: row.total, idBounds: { first: row.first, last: row.last } };
}

/**
 * One page of the user's matching calls, newest first, and how many match in all, read in one snapshot so the
 * two agree. A page nearer the oldest end is read from that end, so the rows skipped are never more than half.
 */
export async function findCallPage(knex: Knex, userId: number, filters: CallFilters, page: PageRequest): Promise<{ calls: CallRecord[]; total: number }> {
  return knex.transaction(async (trx) => {
    // Every statement here reads a few thousand rows at most: starting parallel workers costs more than it saves,
    // and on a busy server it is what makes the slow requests slow.
    await trx.raw('set local max_parallel_workers_per_gather = 0');
    const counted = await countCalls(trx, userId, filters);
    const { total } = counted;
    const { offset, limit } = pageWindow(page);
    if (offset >= total) return { calls: [], total };
    const end = Math.min(offset + limit, total);
    const fromOldest = total - end < offset;
    const calls = await whereCalls(trx('calls'), userId, filters, counted)
      .orderBy('id', fromOldest ? 'asc' : 'desc')
      .offset(fromOldest ? total - end : offset)
      .limit(end - offset) as CallRecord[];
    return { calls: fromOldest ? calls.reverse() : calls, total };
  }, { isolationLevel: 'repeatable read', readOnly: true });
}
