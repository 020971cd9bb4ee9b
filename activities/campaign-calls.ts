import type { Knex } from 'knex';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { balancePaysForACall } from '../src/billing/call-affordability.ts';
import { mediaLinesFree } from '../src/billing/media-capacity.ts';
import { dialingCountries } from '../src/calls/dialing-countries.ts';
import { callingAssistant, createOutboundCall, type CallingAssistant } from '../src/calls/outbound.ts';
import { applyLeadNext, dialable } from '../src/campaigns/leads.ts';
import { CallUnaffordableError, UsageLimitError } from '../src/lib/errors.ts';
import { campaignCallsPlaced } from '../src/lib/metrics.ts';
import { Campaign } from '../src/resources/campaigns/model.ts';
import type { Lead } from '../src/resources/leads/model.ts';
import type { DueLead, PlacedLeadCall } from '../src/temporal/shared.ts';

interface CallingSetup {
  campaign: Campaign;
  assistant: CallingAssistant;
  numbers: string[];
  countries: string[];
}

/** The numbers the campaign calls from, in rotation order; without any, the assistant's own. */
async function callingNumbers(knex: Knex, campaignId: number, assistant: CallingAssistant): Promise<string[]> {
  const rotation: { phoneNumber: string }[] = await knex('campaign_phone_numbers as c').join('phone_numbers as n', 'n.id', 'c.phone_number_id')
    .where('c.campaign_id', campaignId).whereIn('n.status', ['active', 'past_due']).orderBy('c.position').select('n.phone_number');
  if (rotation.length > 0) return rotation.map((number) => number.phoneNumber);
  return assistant.phoneNumber ? [assistant.phoneNumber] : [];
}

/**
 * Placing a campaign's calls: one call row per attempt of a lead, made once whatever retries the activity.
 * `inboundReservePercent` of the account's concurrent calls is left to inbound calls; `mediaLines` answers the
 * media processes' free lines (mediaLinesFree unless given).
 */
export function createLeadCallActivities(deps: { knex: Knex; inboundReservePercent: number; mediaLines?: () => Promise<number | null> }) {
  const { knex, inboundReservePercent } = deps;
  const mediaLines = deps.mediaLines ?? (() => mediaLinesFree(knex));

  /** The campaign cannot dial at all: it is stopped, and the workflow dials nothing more. */
  async function halt(campaignId: number, reason: string): Promise<PlacedLeadCall> {
    await Campaign.query(knex).patch({ status: 'stopped', updatedAt: new Date() }).where({ id: campaignId, status: 'in-progress' });
    return { outcome: 'halt', reason };
  }

  /** What every lead of a batch is called with: the campaign's assistant, its numbers and the countries it may call. */
  async function callingSetup(campaignId: number): Promise<CallingSetup | PlacedLeadCall> {
    const campaign = await Campaign.query(knex).findById(campaignId);
    if (!campaign || campaign.status !== 'in-progress') return { outcome: 'skipped', reason: 'the campaign is not running' };
    if (campaign.assistantId === null) return halt(campaignId, 'the campaign has no assistant');
    const assistant = await callingAssistant(knex, { id: campaign.assistantId });
    if (!assistant) return halt(campaignId, 'the campaign has no assistant');
    const numbers = await callingNumbers(knex, campaignId, assistant);
    if (numbers.length === 0) return halt(campaignId, 'no number to call from');
    // What the account's live calls hold of the balance comes back as they end: only a balance that cannot pay a
    // minute at all stops the campaign (a lead it cannot afford now waits, as one without a free slot does).
    if (!(await balancePaysForACall(knex, campaign.userId))) return halt(campaignId, 'insufficient balance');
    return { campaign, assistant, numbers, countries: await dialingCountries(knex, campaign.userId) };
  }

  /**
   * Creates the call of a lead's next attempt (`attempts` calls made before it) and takes an account slot for
   * it, in one transaction under the lead's lock that also moves the lead to `processing` with the call as
   * its latest: the lead's attempt count is the attempt's key. A try that finds the attempt made (an earlier
   * try committed, its answer lost) answers with that call, so a lead is never dialed twice for one attempt.
   * No free slot in the account: nothing is written, and the lead stays due (not an attempt). Numbers of
   * `phone_number_ids` rotate by lead and attempt. A number in a country the account does not call is never
   * dialed: the lead is out of retries at once and its next contact is due.
   */
  async function placeLead(setup: CallingSetup, { leadId, attempts }: DueLead): Promise<PlacedLeadCall> {
    const { campaign, assistant, numbers } = setup;
    return knex.transaction(async (trx): Promise<PlacedLeadCall> => {
      const lead = await trx('leads').where({ id: leadId, campaignId: campaign.id }).forUpdate().first<Lead | undefined>();
      if (!lead) return { outcome: 'skipped', reason: 'the lead is gone' };
      const placed = { userId: campaign.userId, assistantId: assistant.id };
      if (lead.attempts === attempts + 1 && lead.status === 'processing' && lead.lastCallId !== null) {
        return { outcome: 'placed', callId: Number(lead.lastCallId), ...placed };
      }
      if (lead.attempts !== attempts || !dialable(lead)) return { outcome: 'skipped', reason: 'the attempt is made or the lead settled' };
      const now = new Date();
      if (!setup.countries.includes(parsePhoneNumberFromString(lead.phoneNumber)?.country ?? 'unknown')) {
        const reason = 'a country the account does not call';
        await applyLeadNext(trx, lead, { kind: 'exhausted', reason }, now);
        return { outcome: 'skipped', reason };
      }
      let callId: number;
      try {
        callId = await createOutboundCall(trx, {
          userId: campaign.userId,
          assistant,
          from: numbers[(Number(lead.id) + lead.attempts) % numbers.length] as string,
          to: lead.phoneNumber,
          variables: lead.variables,
          campaign: { id: campaign.id, name: campaign.name, leadId: Number(lead.id) },
          reservePercent: inboundReservePercent,
        });
      } catch (error) {
        if (error instanceof UsageLimitError || error instanceof CallUnaffordableError) return { outcome: 'no-slot' };
        throw error;
      }
      await trx('leads').where({ id: lead.id })
        .update({ status: 'processing', attempts: attempts + 1, lastCallId: callId, nextAttemptAt: null, updatedAt: now });
      return { outcome: 'placed', callId, ...placed };
    });
  }

  /**
   * The leads of a batch whose attempt an earlier run of the same batch made (its answer lost with a worker),
   * answered with their calls before any gate: a gate that closed since (the balance, a media line) must not
   * hide a call that was placed, whose workflow would then never start.
   */
  async function attemptsMade(campaignId: number, leads: DueLead[]): Promise<Map<number, PlacedLeadCall>> {
    const rows: { id: number; attempts: number; callId: number; userId: number; assistantId: number | null }[] = await knex('leads as l')
      .join('calls as c', 'c.id', 'l.last_call_id')
      .where({ 'l.campaign_id': campaignId, 'l.status': 'processing' }).whereIn('l.id', leads.map((lead) => lead.leadId))
      .select('l.id', 'l.attempts', 'c.id as call_id', 'c.user_id', 'c.assistant_id');
    const byLead = new Map(rows.map((row) => [Number(row.id), row]));
    // In the batch's order, as the first run answered them.
    return new Map(leads.flatMap(({ leadId, attempts }): [number, PlacedLeadCall][] => {
      const row = byLead.get(leadId);
      if (row?.attempts !== attempts + 1) return [];
      return [[leadId, { outcome: 'placed', callId: Number(row.callId), userId: Number(row.userId), assistantId: Number(row.assistantId ?? 0) }]];
    }));
  }

  return {
    /**
     * Places the calls of `leads` in order (placeLead: each lead in a transaction of its own, keyed by its
     * attempt), what they share read once, after the calls an earlier run of the batch placed (attemptsMade).
     * Stops at the first lead without a free slot (of the account, or a line of the media processes), or when
     * the campaign cannot dial at all: the answer has one outcome per lead tried, the leads after it untouched
     * and still due.
     */
    async placeLeadCalls({ campaignId, leads }: { campaignId: number; leads: DueLead[] }): Promise<{ outcomes: PlacedLeadCall[] }> {
      const made = await attemptsMade(campaignId, leads);
      const setup = await callingSetup(campaignId);
      if ('outcome' in setup) return { outcomes: [...made.values(), setup] };
      // Read once for the batch: the batch's own calls are the ones that take the lines meanwhile.
      let lines = await mediaLines();
      const outcomes: PlacedLeadCall[] = [];
      for (const lead of leads.filter(({ leadId }) => !made.has(leadId))) {
        if (lines !== null && lines <= 0) {
          outcomes.push({ outcome: 'no-slot' });
          break;
        }
        const outcome = await placeLead(setup, lead);
        if (outcome.outcome === 'placed' && lines !== null) lines -= 1;
        outcomes.push(outcome);
        if (outcome.outcome === 'no-slot') break;
      }
      for (const { outcome } of outcomes) campaignCallsPlaced.inc({ outcome });
      return { outcomes: [...made.values(), ...outcomes] };
    },
  };
}
