import type { Knex } from 'knex';
import { balancePaysForACall } from '../../billing/call-affordability.ts';
import { countOpenLeads } from '../../campaigns/leads.ts';
import type { TemporalClient } from '../../temporal/client.ts';
import { signalCampaign, startCampaign } from '../../temporal/starters.ts';
import { Campaign, type CampaignStatus } from './model.ts';

export interface CampaignStatusDeps {
  knex: Knex;
  temporal: TemporalClient;
}

/** The texts of anchor §7.3, and ours for what it leaves open (a campaign without leads or assistant). */
export const statusTexts = {
  started: 'Campaign started successfully.',
  stopped: 'Campaign stopped successfully.',
  invalidAction: "Invalid action. Must be either 'start' or 'stop'.",
  notFound: 'Campaign not found.',
  notYours: 'Access denied - Campaign does not belong to authenticated user.',
  insufficientBalance: 'Insufficient balance to start the campaign. Please top up your account.',
  noLeads: 'The campaign has no leads left to call. Add leads before starting it.',
  noAssistant: 'The campaign has no assistant. Give it an outbound assistant before starting it.',
};

/** How a status change went: the anchor's answers, each with its HTTP status. */
export type StatusChange =
  | { outcome: 'changed'; campaignId: number; status: CampaignStatus }
  | { outcome: 'refused'; httpStatus: 400 | 403 | 404; message: string; data?: { campaign_id: number; status: CampaignStatus } };

function refused(httpStatus: 400 | 403 | 404, message: string, data?: { campaign_id: number; status: CampaignStatus }): StatusChange {
  return { outcome: 'refused', httpStatus, message, ...(data ? { data } : {}) };
}

/**
 * Starts or stops a campaign (anchor §7.3). Starting needs an assistant, leads still to call and a balance that
 * pays a call's first minute; the campaign becomes `in-progress` and its workflow is started, or told to go on.
 * Stopping makes it `stopped` and tells the workflow, which ends the calls in progress and dials nothing new.
 * The row is written before Temporal is told, and put back when Temporal cannot be: the workflow reads the
 * status on every round, so a row that says `stopped` stops it even if the signal was lost.
 */
export async function changeCampaignStatus(deps: CampaignStatusDeps, userId: number, campaignId: number, action: string): Promise<StatusChange> {
  const { knex } = deps;
  if (action !== 'start' && action !== 'stop') return refused(400, statusTexts.invalidAction);
  const campaign = await Campaign.query(knex).findById(campaignId);
  if (!campaign) return refused(404, statusTexts.notFound);
  if (campaign.userId !== userId) return refused(403, statusTexts.notYours);

  if (action === 'stop') {
    await campaign.$query(knex).patch({ status: 'stopped', updatedAt: new Date() });
    await signalCampaign(deps.temporal, campaignId, 'stop');
    return { outcome: 'changed', campaignId, status: 'stopped' };
  }

  if (campaign.assistantId === null) return refused(400, statusTexts.noAssistant);
  if (await countOpenLeads(knex, campaignId) === 0) return refused(400, statusTexts.noLeads);
  // As the running campaign does: what live calls hold of the balance comes back as they end.
  if (!(await balancePaysForACall(knex, userId))) {
    return refused(400, statusTexts.insufficientBalance, { campaign_id: campaignId, status: campaign.status });
  }
  const { status: before, assistantId } = campaign;
  await campaign.$query(knex).patch({ status: 'in-progress', updatedAt: new Date() });
  try {
    await startCampaign(deps.temporal, { id: campaignId, userId, assistantId });
  } catch (error) {
    await Campaign.query(knex).patch({ status: before }).where({ id: campaignId, status: 'in-progress' });
    throw error;
  }
  return { outcome: 'changed', campaignId, status: 'in-progress' };
}

/**
 * Tells a running campaign's workflow that it has new leads to look at (created, imported, or updated back
 * to `created`), so it dials them now rather than at its next round. A campaign not running needs nothing.
 */
export async function tellLeadsAdded(deps: CampaignStatusDeps, campaignId: number): Promise<void> {
  const campaign = await Campaign.query(deps.knex).findById(campaignId).select('status');
  if (campaign?.status === 'in-progress') await signalCampaign(deps.temporal, campaignId, 'leadsAdded');
}
