import type { Knex } from 'knex';
import { applyLeadNext, countOpenLeads, dueLeads, nextDueAt } from '../src/campaigns/leads.ts';
import { nextForLead, retryPolicyOf, type CallOutcome } from '../src/campaigns/retries.ts';
import { callingWindowOf, isWithinWindow, nextWindowOpening } from '../src/campaigns/window.ts';
import type { Config } from '../src/config.ts';
import { Campaign } from '../src/resources/campaigns/model.ts';
import type { Lead } from '../src/resources/leads/model.ts';
import type { CampaignRound, LeadSettlement } from '../src/temporal/shared.ts';
import { createLeadCallActivities } from './campaign-calls.ts';

export interface CampaignActivityDependencies {
  knex: Knex;
  config: Pick<Config, 'campaignRetryUnitMs' | 'campaignInboundReservePercent'>;
  /** The media processes' free lines; the database's reports (src/billing/media-capacity.ts) unless given. */
  mediaLines?: () => Promise<number | null>;
}

/**
 * How long after its end a followed call's workflow may take to say it finished (its evaluation and the
 * carrier's price are retried for minutes) before the round counts it finished without that.
 */
const FOLLOWED_CALL_GRACE_MS = 30 * 60_000;

interface EndedCall {
  status: string;
  answeredBy: CallOutcome['answeredBy'];
  evaluation: Record<string, unknown> | null;
  endedAt: Date | null;
}

/** The campaign's side of its workflow: what a round reads, how an ended call settles its lead, and the end. */
export function createCampaignActivities(deps: CampaignActivityDependencies) {
  const { knex, config } = deps;

  /**
   * Settles a `processing` lead whose latest call is `callId` (null: its call record was deleted). A call that
   * never recorded its end (its workflow failed), or whose record is gone, counts as failed.
   */
  async function settleLead(leadId: number, callId: number | null): Promise<LeadSettlement | null> {
    return knex.transaction(async (trx) => {
      const lead = await trx('leads').where({ id: leadId }).forUpdate().first<Lead | undefined>();
      if (!lead || lead.status !== 'processing' || (lead.lastCallId === null ? null : Number(lead.lastCallId)) !== callId) return null;
      const campaign = await Campaign.query(trx).findById(lead.campaignId);
      if (!campaign) return null;
      const call = callId === null ? undefined : await trx('calls').where({ id: callId })
        .first<EndedCall | undefined>('status', 'answeredBy', 'evaluation', 'endedAt');
      const now = new Date();
      const outcome: CallOutcome = call?.endedAt
        ? { status: call.status, answeredBy: call.answeredBy, evaluation: call.evaluation }
        : { status: 'failed', answeredBy: null, evaluation: null };
      const next = nextForLead(retryPolicyOf(campaign, config.campaignRetryUnitMs), lead.attempts, outcome, call?.endedAt ?? now);
      const status = await applyLeadNext(trx, lead, next, now);
      return { leadId: Number(lead.id), status, reason: next.reason };
    });
  }

  /**
   * Leads `processing` in calls the run does not follow (a run that was terminated left them): those whose call
   * has ended, or whose record is gone, are settled now; those still live are counted against the places.
   */
  async function adoptStranded(campaignId: number, following: number[]): Promise<number> {
    const stranded: { id: number; callId: number | null; endedAt: Date | null }[] = await knex('leads as l')
      .leftJoin('calls as c', 'c.id', 'l.last_call_id')
      .where({ 'l.campaign_id': campaignId, 'l.status': 'processing' })
      .where((unfollowed) => unfollowed.whereNull('l.last_call_id').orWhereNotIn('l.last_call_id', following))
      .select('l.id', 'c.id as call_id', 'c.ended_at');
    let live = 0;
    for (const lead of stranded) {
      if (lead.callId !== null && lead.endedAt === null) live += 1;
      else await settleLead(Number(lead.id), lead.callId === null ? null : Number(lead.callId));
    }
    return live;
  }

  return {
    ...createLeadCallActivities({ knex, inboundReservePercent: config.campaignInboundReservePercent, mediaLines: deps.mediaLines }),

    /**
     * Settles the leads of the calls in `settle` (settleLead: only a lead's latest call, while the lead is
     * `processing`, settles it, so a retried round changes nothing twice), then reads what the campaign's next
     * step depends on, at this moment: the campaign, its window, up to the free places' worth of due leads
     * (oldest due first), when the next waiting lead falls due, and the open leads. The run follows the calls
     * `following` (holding places) and `ended` (places free, still evaluated); the leads of any other call still
     * `processing` are adopted, and a followed call that ended long ago without its workflow saying it finished
     * (terminated by an operator) is answered as `overdue`.
     */
    async campaignRound({ campaignId, following, ended = [], settle = [] }: {
      campaignId: number; following: number[]; ended?: number[]; settle?: number[];
    }): Promise<CampaignRound> {
      const settled: LeadSettlement[] = [];
      for (const callId of settle) {
        const call = await knex('calls').where({ id: callId }).first<{ leadId: number | null } | undefined>('leadId');
        const settlement = call?.leadId ? await settleLead(Number(call.leadId), callId) : null;
        if (settlement) settled.push(settlement);
      }
      const campaign = await Campaign.query(knex).findById(campaignId);
      if (!campaign) return { campaign: null, windowOpensAt: null, windowNeverOpens: false, due: [], nextDueAt: null, open: 0, settled, overdue: [] };
      const followed = [...following, ...ended];
      const strandedLive = await adoptStranded(campaignId, followed);
      const now = new Date();
      const overdue = followed.length === 0 ? [] : (await knex('calls').whereIn('id', followed)
        .where('endedAt', '<', new Date(now.getTime() - FOLLOWED_CALL_GRACE_MS)).pluck('id')).map(Number);
      const window = callingWindowOf(campaign);
      const inside = isWithinWindow(window, now);
      const opens = inside ? null : nextWindowOpening(window, now);
      const free = Math.max(campaign.maxCallsInParallel - following.length - strandedLive, 0);
      const due = inside && free > 0 ? await dueLeads(knex, campaignId, now, free) : [];
      const later = await nextDueAt(knex, campaignId, now);
      const open = await countOpenLeads(knex, campaignId);
      return {
        campaign: { status: campaign.status, maxCallsInParallel: campaign.maxCallsInParallel, markCompleteWhenNoLeads: campaign.markCompleteWhenNoLeads },
        windowOpensAt: opens?.toISOString() ?? null,
        windowNeverOpens: !inside && opens === null,
        due,
        nextDueAt: later?.toISOString() ?? null,
        open,
        settled,
        overdue,
      };
    },

    /** Ends a running campaign with `status` (a stopped or deleted one stays as it is). */
    async finishCampaign({ campaignId, status }: { campaignId: number; status: 'completed' }): Promise<void> {
      await Campaign.query(knex).patch({ status, updatedAt: new Date() }).where({ id: campaignId, status: 'in-progress' });
    },
  };
}

