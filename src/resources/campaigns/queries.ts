import type { Knex } from 'knex';
import { LIVE_STATUSES } from '../calls/model.ts';
import { LEAD_STATUSES, type LeadStatus } from '../leads/model.ts';

/** The dialing numbers of each campaign, in rotation order. */
export async function phoneNumberIdsOf(knex: Knex, campaignIds: number[]): Promise<Map<number, number[]>> {
  const rows: { campaignId: number; phoneNumberId: number }[] = await knex('campaign_phone_numbers')
    .whereIn('campaign_id', campaignIds)
    .orderBy(['campaign_id', 'position'])
    .select('campaign_id', 'phone_number_id');
  const byCampaign = new Map<number, number[]>(campaignIds.map((id) => [id, []]));
  for (const row of rows) byCampaign.get(Number(row.campaignId))?.push(Number(row.phoneNumberId));
  return byCampaign;
}

/** Replaces a campaign's dialing numbers with these, in this order. */
export async function assignPhoneNumbers(trx: Knex.Transaction, campaignId: number, phoneNumberIds: number[]): Promise<void> {
  await trx('campaign_phone_numbers').where({ campaignId }).delete();
  if (phoneNumberIds.length === 0) return;
  await trx('campaign_phone_numbers').insert(phoneNumberIds.map((phoneNumberId, position) => ({ campaignId, phoneNumberId, position })));
}

/** How many of the campaign's leads have each status (every status listed, 0 when none). */
export async function leadCounts(knex: Knex, campaignId: number): Promise<Record<LeadStatus, number>> {
  const rows: { status: LeadStatus; count: string | number }[] = await knex('leads').where({ campaignId }).groupBy('status').select('status').count({ count: '*' });
  const counts = Object.fromEntries(LEAD_STATUSES.map((status) => [status, 0])) as Record<LeadStatus, number>;
  for (const row of rows) counts[row.status] = Number(row.count);
  return counts;
}

/** The campaign's calls ringing or connected now. */
export async function liveCallCount(knex: Knex, userId: number, campaignId: number): Promise<number> {
  const rows: { count: string | number }[] = await knex('calls').where({ userId, campaignId }).whereIn('status', LIVE_STATUSES).count({ count: '*' });
  return Number(rows[0]?.count ?? 0);
}
