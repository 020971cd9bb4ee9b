import type { Knex } from 'knex';
import { nextForLead, type CallOutcome } from '../src/campaigns/retries.ts';
import { isWithinWindow, nextWindowOpening } from '../src/campaigns/window.ts';
import type { Config } from '../src/config.ts';
import { Campaign } from '../src/resources/campaigns/model.ts';
import { openLeads } from '../src/resources/campaigns/queries.ts';
import type { Lead } from '../src/resources/leads/model.ts';
import type { CampaignRound, DueLead } from '../src/temporal/shared.ts';
import { createLeadCallActivities, scheduleNextContact } from './campaign-calls.ts';

export interface CampaignActivityDependencies {
  knex: Knex;
  config: Pick<Config, 'campaignRetryUnitMs'>;
}

/** Statuses of a lead that a round may dial when its time has come (a `created` contact waits for its turn). */
const DIALABLE = ['scheduled', 'rescheduled'];

interface EndedCall {
  leadId: number | null;
  status: string;
  answeredBy: CallOutcome['answeredBy'];
  evaluation: Record<string, unknown> | null;
  endedAt: Date | null;
}

/** The campaign's side of its workflow: what a round reads, how an ended call settles its lead, and the end. */
export function createCampaignActivities(deps: CampaignActivityDependencies) {
  const { knex, config } = deps;
  return {
    ...createLeadCallActivities({ knex }),

    /**
     * Reads what the campaign's next step depends on, at this moment: the campaign, its window, up to the free
     * places' worth of due leads (oldest due first), when the next waiting lead falls due, and the open leads.
     */
    async campaignRound({ campaignId, inFlight }: { campaignId: number; inFlight: number }): Promise<CampaignRound> {
      const now = new Date();
      const campaign = await Campaign.query(knex).findById(campaignId);
      if (!campaign) return { campaign: null, windowOpensAt: null, windowNeverOpens: false, due: [], nextDueAt: null, open: 0 };
      const window = { timeZone: campaign.timezone, days: campaign.allowedDays, start: campaign.allowedHoursStartTime, end: campaign.allowedHoursEndTime };
      const inside = isWithinWindow(window, now);
      const opens = inside ? null : nextWindowOpening(window, now);
      const free = Math.max(campaign.maxCallsInParallel - inFlight, 0);
      const due: DueLead[] = inside && free > 0
        ? (await knex('leads').where({ campaignId })
          .where((dialable) => dialable.whereIn('status', DIALABLE).orWhere((fresh) => fresh.where({ status: 'created' }).whereNull('primaryLeadId')))
          .where((time) => time.whereNull('nextAttemptAt').orWhere('nextAttemptAt', '<=', now))
          .orderByRaw('next_attempt_at asc nulls first, id asc').limit(free)
          .select<{ id: number; attempts: number }[]>('id', 'attempts')).map((lead) => ({ leadId: Number(lead.id), attempts: lead.attempts }))
        : [];
      const later = await knex('leads').where({ campaignId }).whereIn('status', DIALABLE).where('nextAttemptAt', '>', now)
        .min<{ at: Date | string | null }>('nextAttemptAt as at').first();
      const [open] = await openLeads(knex, campaignId).count<{ count: string }[]>('id as count');
      return {
        campaign: { status: campaign.status, maxCallsInParallel: campaign.maxCallsInParallel, markCompleteWhenNoLeads: campaign.markCompleteWhenNoLeads },
        windowOpensAt: opens?.toISOString() ?? null,
        windowNeverOpens: !inside && opens === null,
        due,
        nextDueAt: later?.at ? new Date(later.at).toISOString() : null,
        open: Number(open?.count ?? 0),
      };
    },

    /**
     * Settles the lead of a call that ended, by the campaign's retry rules (src/campaigns/retries.ts): completed,
     * rescheduled after `retry_interval`, or out of retries, which makes its next secondary contact due. Only
     * the lead's latest call, while the lead is `processing`, settles it: a retried settling changes nothing.
     */
    async settleLeadCall({ callId }: { callId: number }): Promise<{ settled: LeadSettlement | null }> {
      return knex.transaction(async (trx) => {
        const call = await trx('calls').where({ id: callId })
          .first<EndedCall | undefined>('leadId', 'status', 'answeredBy', 'evaluation', 'endedAt');
        if (!call?.leadId) return { settled: null };
        const lead = await trx('leads').where({ id: call.leadId }).forUpdate().first<Lead | undefined>();
        if (!lead || lead.status !== 'processing' || Number(lead.lastCallId) !== callId) return { settled: null };
        const campaign = await Campaign.query(trx).findById(lead.campaignId);
        if (!campaign) return { settled: null };
        const now = new Date();
        // A call whose workflow is over without an end recorded (it failed) will never end: it failed.
        const outcome: CallOutcome = call.endedAt
          ? { status: call.status, answeredBy: call.answeredBy, evaluation: call.evaluation }
          : { status: 'failed', answeredBy: null, evaluation: null };
        const next = nextForLead({
          maxRetries: campaign.maxRetries,
          retryIntervalMs: campaign.retryInterval * config.campaignRetryUnitMs,
          retryOnVoicemail: campaign.retryOnVoicemail,
          retryOnGoalIncomplete: campaign.retryOnGoalIncomplete,
          goalCompletionVariable: campaign.goalCompletionVariable,
        }, lead.attempts, outcome, call.endedAt ?? now);
        const status = next.kind === 'completed' ? 'completed' : next.kind === 'retry' ? 'rescheduled' : 'reached-max-retries';
        await trx('leads').where({ id: lead.id }).update({ status, nextAttemptAt: next.kind === 'retry' ? next.at : null, updatedAt: now });
        if (next.kind === 'exhausted') await scheduleNextContact(trx, lead, now);
        return { settled: { leadId: Number(lead.id), status, reason: next.reason } };
      });
    },

    /** Ends a running campaign with `status` (a stopped or deleted one stays as it is). */
    async finishCampaign({ campaignId, status }: { campaignId: number; status: 'completed' }): Promise<void> {
      await Campaign.query(knex).patch({ status, updatedAt: new Date() }).where({ id: campaignId, status: 'in-progress' });
    },
  };
}

/** How a call settled its lead, for the workflow's history. */
export interface LeadSettlement {
  leadId: number;
  status: string;
  reason: string;
}
