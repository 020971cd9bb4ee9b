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
  /** Every call of a date range has an id in these bounds (see migrations/20261123000003_count_calls.ts). */
  idBounds?: { first: number; last: number };
}

function nextDay(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + 1);
  return date.toISOString().slice(0, 10);
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
  if (filters.dateTo) query.where('created_at', '<', `${nextDay(filters.dateTo)}T00:00:00Z`);
  if (counted?.idBounds) query.whereBetween('id', [counted.idBounds.first, counted.idBounds.last]);
  return query;
}

/**
 * The exact number of the user's calls that match. A phone number picks few calls, counted from its index;
 * otherwise the trigger-kept counts answer: per day for a date range, else per combination of filters.
 */
async function countCalls(knex: Knex, userId: number, filters: CallFilters): Promise<Counted> {
  if (filters.phoneNumber) {
    const rows: { total: number }[] = await whereCalls(knex('calls'), userId, filters).count({ total: '*' });
    return { total: Number(rows[0]?.total ?? 0) };
  }
  if (filters.dateFrom || filters.dateTo) {
    const query = whereEqualities(knex('call_day_counts').where('user_id', userId), filters)
      .select(knex.raw('coalesce(sum(calls), 0)::bigint as total, min(first_id) as first, max(last_id) as last'));
    if (filters.dateFrom) query.where('day', '>=', filters.dateFrom);
    if (filters.dateTo) query.where('day', '<=', filters.dateTo);
    const [row] = await query as { total: number; first: number | null; last: number | null }[];
    if (!row || row.first === null || row.last === null) return { total: 0 };
    return { total: row.total, idBounds: { first: row.first, last: row.last } };
  }
  const rows: { total: number }[] = await whereEqualities(knex('call_counts').where('user_id', userId), filters)
    .select(knex.raw('coalesce(sum(calls), 0)::bigint as total'));
  return { total: rows[0]?.total ?? 0 };
}

/**
 * One page of the user's matching calls, newest first, and how many match in all, read in one snapshot so the
 * two agree. A page nearer the oldest end is read from that end, so the rows skipped are never more than half.
 */
export async function findCallPage(knex: Knex, userId: number, filters: CallFilters, page: PageRequest): Promise<{ calls: CallRecord[]; total: number }> {
  return knex.transaction(async (trx) => {
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
