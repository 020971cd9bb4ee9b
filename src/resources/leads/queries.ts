import type { Knex } from 'knex';
import { pageWindow, type PageRequest } from '../../lib/pagination.ts';
import { Lead, type LeadStatus } from './model.ts';
import type { LeadView } from './serialize.ts';

export interface LeadFilters {
  status?: LeadStatus | undefined;
  campaignId?: number | undefined;
  /** Digits the number must contain. */
  phoneDigits?: string | undefined;
  /** Inclusive UTC days, `YYYY-MM-DD`. */
  dateFrom?: string | undefined;
  dateTo?: string | undefined;
}

function addDay(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + 1);
  return date.toISOString().slice(0, 10);
}

/** The user's main leads matching the filters (secondary contacts are listed inside their lead). */
function whereLeads(knex: Knex, userId: number, filters: LeadFilters) {
  const query = Lead.query(knex).where({ userId }).whereNull('primaryLeadId');
  if (filters.status) query.where('status', filters.status);
  if (filters.campaignId) query.where('campaignId', filters.campaignId);
  if (filters.phoneDigits) query.where('phoneNumber', 'like', `%${filters.phoneDigits}%`);
  if (filters.dateFrom) query.where('createdAt', '>=', `${filters.dateFrom}T00:00:00Z`);
  if (filters.dateTo) query.where('createdAt', '<', `${addDay(filters.dateTo)}T00:00:00Z`);
  return query;
}

/** Each lead with its campaign's id and name and its secondary contacts in calling order, read in two queries. */
export async function withContacts(knex: Knex, leads: Lead[]): Promise<LeadView[]> {
  if (leads.length === 0) return [];
  const ids = leads.map((lead) => lead.id);
  const contacts = await Lead.query(knex).whereIn('primaryLeadId', ids).orderBy(['primaryLeadId', 'contactOrder']);
  const campaigns: { id: number; name: string }[] = await knex('campaigns').whereIn('id', [...new Set(leads.map((lead) => lead.campaignId))]).select('id', 'name');
  const names = new Map(campaigns.map((campaign) => [Number(campaign.id), campaign.name]));
  return leads.map((lead) => ({
    lead,
    campaign: { id: lead.campaignId, name: names.get(Number(lead.campaignId)) ?? '' },
    secondaryContacts: contacts.filter((contact) => contact.primaryLeadId === lead.id),
  }));
}

/** One page of the matching leads, newest first, and how many match, read in one snapshot so the two agree. */
export async function findLeadPage(knex: Knex, userId: number, filters: LeadFilters, page: PageRequest): Promise<{ leads: LeadView[]; total: number }> {
  return knex.transaction(async (trx) => {
    const total = await whereLeads(trx, userId, filters).resultSize();
    const { offset, limit } = pageWindow(page);
    if (offset >= total) return { leads: [], total };
    const leads = await whereLeads(trx, userId, filters).orderBy('id', 'desc').offset(offset).limit(limit);
    return { leads: await withContacts(trx, leads), total };
  });
}

/** Which of these numbers the campaign already has a lead for. */
export async function numbersInCampaign(knex: Knex, campaignId: number, phoneNumbers: string[]): Promise<Set<string>> {
  if (phoneNumbers.length === 0) return new Set();
  const rows: { phoneNumber: string }[] = await knex('leads').where({ campaignId }).whereIn('phone_number', [...new Set(phoneNumbers)]).select('phone_number');
  return new Set(rows.map((row) => row.phoneNumber));
}
