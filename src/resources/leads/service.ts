import type { Knex } from 'knex';
import { attributeName } from '../../api/validation.ts';
import { NotFoundError, ValidationError } from '../../lib/errors.ts';
import type { PageRequest } from '../../lib/pagination.ts';
import { toE164 } from '../../lib/phone-numbers.ts';
import { findCampaign } from '../campaigns/service.ts';
import { Lead, type LeadStatus } from './model.ts';
import { findLeadPage, numbersInCampaign } from './queries.ts';
import type { CreateLeadBody, LeadListQuery, UpdateLeadBody } from './schemas.ts';
import type { LeadView } from './serialize.ts';

export const leadTexts = {
  notFound: 'Lead not found',
  invalidNumber: 'Invalid phone number',
  duplicate: 'This phone number is already a lead of this campaign. Send allow_dupplicate: true to add it again.',
};

/** The fields an update may change (anchor §8.3), `variable` being another name of `variables`. */
const CHANGEABLE = new Set(['campaign_id', 'phone_number', 'status', 'variables', 'variable']);

function e164(field: string, written: string): string {
  const number = toE164(written);
  if (!number) throw ValidationError.of(field, leadTexts.invalidNumber);
  return number;
}

/**
 * Creates a lead `created` in one of the user's campaigns, and its secondary contacts as leads of the same
 * campaign tied to it, in the order given. A number the campaign already has is refused unless
 * `allow_dupplicate`; the campaign's row is locked meanwhile, so two requests cannot both add it.
 */
export async function createLead(knex: Knex, userId: number, input: CreateLeadBody): Promise<LeadView> {
  const errors: Record<string, string[]> = {};
  const number = (field: string, written: string) => {
    try {
      return e164(field, written);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      Object.assign(errors, error.errors);
      return '';
    }
  };
  const phoneNumber = number('phone_number', input.phone_number);
  const contacts = (input.secondary_contacts ?? []).map((contact, index) => ({
    phoneNumber: number(`secondary_contacts.${index}.phone_number`, contact.phone_number),
    variables: contact.variables ?? {},
  }));
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return knex.transaction(async (trx) => {
    const campaign = await findCampaign(trx, userId, input.campaign_id, { lock: true });
    if (!input.allow_dupplicate && (await numbersInCampaign(trx, campaign.id, [phoneNumber])).size > 0) {
      throw ValidationError.of('phone_number', leadTexts.duplicate);
    }
    const lead = await Lead.query(trx).insertAndFetch({
      userId, campaignId: campaign.id, phoneNumber, variables: { ...input.variable, ...input.variables }, status: 'created',
    });
    const secondaryContacts = contacts.length === 0 ? [] : await Lead.query(trx).insertAndFetch(contacts.map((contact, index) => ({
      userId, campaignId: campaign.id, primaryLeadId: lead.id, contactOrder: index + 1, ...contact, status: 'created' as const,
    })));
    return { lead, campaign: { id: campaign.id, name: campaign.name }, secondaryContacts };
  });
}

/** A page of the user's leads, newest first; the phone filter matches any part of the number's digits. */
export async function listLeads(knex: Knex, userId: number, query: LeadListQuery, page: PageRequest): Promise<{ leads: LeadView[]; total: number }> {
  return findLeadPage(knex, userId, {
    status: query.status as LeadStatus | undefined,
    campaignId: query.campaign_id,
    phoneDigits: query.phone_number?.replace(/\D/g, '') || undefined,
    dateFrom: query.date_from,
    dateTo: query.date_to,
  }, page);
}

async function findLead(knex: Knex, userId: number, id: number): Promise<Lead> {
  const lead = await Lead.query(knex).findOne({ id, userId }).forUpdate();
  if (!lead) throw new NotFoundError(leadTexts.notFound);
  return lead;
}

/**
 * Changes the fields sent, and only the four of anchor §8.3: another campaign of the user's (the secondary
 * contacts move with their lead), a number (to E.164), a settable status, variables merged into the stored ones.
 */
export async function updateLead(knex: Knex, userId: number, id: number, input: UpdateLeadBody): Promise<void> {
  const refused = Object.keys(input).filter((field) => !CHANGEABLE.has(field));
  if (refused.length > 0) {
    throw new ValidationError(Object.fromEntries(refused.map((field) => [field, [`The ${attributeName(field)} field cannot be updated.`]])));
  }
  const phoneNumber = input.phone_number === undefined ? undefined : e164('phone_number', input.phone_number);
  await knex.transaction(async (trx) => {
    const lead = await findLead(trx, userId, id);
    const moving = input.campaign_id !== undefined && input.campaign_id !== lead.campaignId;
    if (moving) {
      if (lead.primaryLeadId !== null) throw ValidationError.of('campaign_id', 'A secondary contact stays in the campaign of its lead.');
      // Another user's campaign is answered as missing: `Campaign not found`.
      const campaign = await findCampaign(trx, userId, input.campaign_id as number);
      await Lead.query(trx).patch({ campaignId: campaign.id, updatedAt: new Date() }).where({ primaryLeadId: lead.id });
    }
    const variables = input.variables ?? input.variable ? { ...lead.variables, ...input.variable, ...input.variables } : undefined;
    await lead.$query(trx).patch({
      ...(moving ? { campaignId: input.campaign_id } : {}),
      ...(phoneNumber !== undefined ? { phoneNumber } : {}),
      ...(input.status !== undefined ? { status: input.status as LeadStatus } : {}),
      ...(variables ? { variables } : {}),
      updatedAt: new Date(),
    });
  });
}

/** Deletes the lead; its secondary contacts go with it (the migration's cascade). */
export async function deleteLead(knex: Knex, userId: number, id: number): Promise<void> {
  const deleted = await Lead.query(knex).delete().where({ id, userId });
  if (deleted === 0) throw new NotFoundError(leadTexts.notFound);
}
