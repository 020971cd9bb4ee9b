/**
 * The post-call webhook's body (W1, anchor-api.md §13.1), every field, from what the call's records hold. Pure:
 * the activity reads the rows and signs the recording's link.
 */

export interface PostCallFacts {
  call: {
    id: number;
    status: string;
    duration: number;
    clientPhoneNumber: string | null;
    assistantPhoneNumber: string | null;
    transcript: string;
    variables: Record<string, unknown>;
    evaluation: Record<string, unknown> | null;
    createdAt: Date;
    updatedAt: Date;
  };
  lead: { id: number; phoneNumber: string; variables: Record<string, unknown>; status: string; createdAt: Date; updatedAt: Date } | null;
  campaign: {
    id: number;
    name: string;
    status: string;
    allowedHoursStartTime: string;
    allowedHoursEndTime: string;
    allowedDays: string[];
    maxCallsInParallel: number;
    maxRetries: number;
    retryInterval: number;
    createdAt: Date;
    updatedAt: Date;
  } | null;
  /** A link to the recording, when the call has one and the assistant includes it in the webhook. */
  recordingUrl: string | null;
}

/** The statuses of a call that never connected: `send_webhook_only_on_completed` skips them. */
const UNCONNECTED_STATUSES = new Set(['failed', 'busy', 'no-answer']);

/**
 * Whether a call ending in `status` is announced: always, unless the assistant sends only for completed calls
 * and the call never connected (its callee did not answer, or it failed before). A call that connected and was
 * hung up by either side counts as completed here: it ran its course (docs/decisions.md, "Webhooks").
 */
export function postCallWebhookWanted(status: string, onlyOnCompleted: boolean): boolean {
  return !onlyOnCompleted || !UNCONNECTED_STATUSES.has(status);
}

export function postCallPayload({ call, lead, campaign, recordingUrl }: PostCallFacts): Record<string, unknown> {
  const campaignObject = campaign && {
    id: campaign.id,
    name: campaign.name,
    status: campaign.status,
    allowed_hours_start_time: campaign.allowedHoursStartTime,
    allowed_hours_end_time: campaign.allowedHoursEndTime,
    allowed_days: campaign.allowedDays,
    max_calls_in_parallel: campaign.maxCallsInParallel,
    max_retries: campaign.maxRetries,
    retry_interval: campaign.retryInterval,
    created_at: campaign.createdAt.toISOString(),
    updated_at: campaign.updatedAt.toISOString(),
  };
  return {
    id: call.id,
    customer_phone: call.clientPhoneNumber,
    assistant_phone: call.assistantPhoneNumber,
    duration: call.duration,
    status: call.status,
    extracted_variables: call.evaluation ?? {},
    input_variables: call.variables,
    transcript: call.transcript,
    recording_url: recordingUrl,
    created_at: call.createdAt.toISOString(),
    finished_at: call.updatedAt.toISOString(),
    // The docs disagree on where the campaign goes (§13.1): both places, for every existing integration.
    lead: lead && {
      id: lead.id,
      phone_number: lead.phoneNumber,
      variables: lead.variables,
      status: lead.status,
      created_at: lead.createdAt.toISOString(),
      updated_at: lead.updatedAt.toISOString(),
      campaign: campaignObject,
    },
    campaign: campaignObject,
  };
}
