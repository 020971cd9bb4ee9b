import type { Knex } from 'knex';
import type { DueLead } from '../temporal/shared.ts';
import type { LeadNext } from './retries.ts';

/**
 * Which of a campaign's leads are called, in what order, and what a call's end makes of its lead: the rules
 * over the `leads` rows, as the campaign's activities and its start route apply them.
 *
 * - A main lead is dialable while `created` (never called), and any lead once `scheduled` (a contact whose
 *   turn came) or `rescheduled` (a retry): at once without a `next_attempt_at`, else from that time on.
 * - A secondary contact stays `created` until its lead (or the contact before it) runs out of retries; then the
 *   next one in `contact_order` is scheduled, due at once. It may never be called: until then it is not open.
 * - Open: dialable, or `processing` (in a call). A campaign with no open lead has nothing left to do.
 */

/** What these rules read of a lead's row. */
export interface LeadPlace {
  id: number;
  status: string;
  /** The main lead of a secondary contact; null on a main lead. */
  primaryLeadId: number | null;
  contactOrder: number;
}

/** Statuses of a lead scheduled for a call; a main lead still `created` is dialable too. */
const SCHEDULED = ['scheduled', 'rescheduled'];

/** The status a lead's row takes for what comes next after its call (nextForLead). */
export type SettledLeadStatus = 'completed' | 'rescheduled' | 'reached-max-retries';

/** Whether a round may dial the lead when its time has come. */
export function dialable(lead: Pick<LeadPlace, 'status' | 'primaryLeadId'>): boolean {
  return SCHEDULED.includes(lead.status) || (lead.status === 'created' && lead.primaryLeadId === null);
}

/** The leads with one of `statuses`, or main leads never called. */
function withStatusOrFresh(query: Knex.QueryBuilder, statuses: string[]): Knex.QueryBuilder {
  return query.where((leads) => {
    leads.whereIn('status', statuses).orWhere((fresh) => fresh.where({ status: 'created' }).whereNull('primaryLeadId'));
  });
}

/** How many of the campaign's leads are still to call or in a call. */
export async function countOpenLeads(knex: Knex, campaignId: number): Promise<number> {
  const [open] = await withStatusOrFresh(knex('leads').where({ campaignId }), [...SCHEDULED, 'processing']).count<{ count: string }[]>('id as count');
  return Number(open?.count ?? 0);
}

/** Up to `limit` leads of the campaign dialable and due at `now`, the longest due first (never-called leads before all). */
export async function dueLeads(knex: Knex, campaignId: number, now: Date, limit: number): Promise<DueLead[]> {
  const rows = await withStatusOrFresh(knex('leads').where({ campaignId }), SCHEDULED)
    .where((time) => time.whereNull('nextAttemptAt').orWhere('nextAttemptAt', '<=', now))
    .orderByRaw('next_attempt_at asc nulls first, id asc').limit(limit)
    .select<{ id: number; attempts: number }[]>('id', 'attempts');
  return rows.map((lead) => ({ leadId: Number(lead.id), attempts: lead.attempts }));
}

/** When the campaign's next scheduled lead not due at `now` falls due; null when none waits. */
export async function nextDueAt(knex: Knex, campaignId: number, now: Date): Promise<Date | null> {
  const later = await knex('leads').where({ campaignId }).whereIn('status', SCHEDULED).where('nextAttemptAt', '>', now)
    .min<{ at: Date | string | null }>('nextAttemptAt as at').first();
  return later?.at ? new Date(later.at) : null;
}

/**
 * After a lead (or contact) ran out of retries, its next secondary contact in `contact_order` falls due now.
 * Called with the lead's row locked, so two settlings cannot both schedule a contact.
 */
export async function scheduleNextContact(trx: Knex.Transaction, lead: LeadPlace, now: Date): Promise<void> {
  const next = await trx('leads').where({ primaryLeadId: lead.primaryLeadId ?? lead.id, status: 'created' })
    .where('contactOrder', '>', lead.contactOrder).orderBy('contactOrder').first<{ id: number } | undefined>('id');
  if (next) await trx('leads').where({ id: next.id }).update({ status: 'scheduled', nextAttemptAt: now, updatedAt: now });
}

/**
 * Writes what comes next for a lead: completed, rescheduled for its retry, or out of retries with its next
 * contact due now. Called with the lead's row locked (scheduleNextContact); answers the status written.
 */
export async function applyLeadNext(trx: Knex.Transaction, lead: LeadPlace, next: LeadNext, now: Date): Promise<SettledLeadStatus> {
  const status = next.kind === 'completed' ? 'completed' : next.kind === 'retry' ? 'rescheduled' : 'reached-max-retries';
  await trx('leads').where({ id: lead.id }).update({ status, nextAttemptAt: next.kind === 'retry' ? next.at : null, updatedAt: now });
  if (next.kind === 'exhausted') await scheduleNextContact(trx, lead, now);
  return status;
}
