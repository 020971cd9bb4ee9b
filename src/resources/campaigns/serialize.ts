import { isoTimestamp } from '../../lib/time.ts';
import type { Campaign } from './model.ts';
import type { CampaignProgress } from './service.ts';

/** A campaign as every campaign route shows it: the anchor's fields (§7.1), then the rest of its settings. */
export function campaignItem(campaign: Campaign, phoneNumberIds: number[]) {
  return {
    id: campaign.id,
    name: campaign.name,
    status: campaign.status,
    max_calls_in_parallel: campaign.maxCallsInParallel,
    mark_complete_when_no_leads: campaign.markCompleteWhenNoLeads,
    allowed_hours_start_time: campaign.allowedHoursStartTime,
    allowed_hours_end_time: campaign.allowedHoursEndTime,
    allowed_days: campaign.allowedDays,
    max_retries: campaign.maxRetries,
    retry_interval: campaign.retryInterval,
    created_at: isoTimestamp(campaign.createdAt),
    updated_at: isoTimestamp(campaign.updatedAt),
    assistant_id: campaign.assistantId,
    timezone: campaign.timezone,
    retry_on_voicemail: campaign.retryOnVoicemail,
    retry_on_goal_incomplete: campaign.retryOnGoalIncomplete,
    goal_completion_variable: campaign.goalCompletionVariable,
    phone_number_ids: phoneNumberIds,
  };
}

/** The single read: the campaign and how far it has got. */
export function campaignWithProgress(campaign: Campaign, phoneNumberIds: number[], progress: CampaignProgress) {
  return {
    ...campaignItem(campaign, phoneNumberIds),
    progress: {
      leads: progress.leads,
      leads_by_status: progress.leadsByStatus,
      calls_in_progress: progress.callsInProgress,
      next_window_opens_at: isoTimestamp(progress.nextWindowOpensAt),
    },
  };
}
