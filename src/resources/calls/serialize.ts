import { recordingUrl, type RecordingLinks } from '../../calls/recordings.ts';
import { microsToUsd } from '../../lib/money.ts';
import { sqlTimestamp } from '../../lib/time.ts';
import type { CallRecord } from './model.ts';

/** One call as the list and the single read show it: the contract's fields, then what the engine adds. */
export function callItem(call: CallRecord, links: RecordingLinks) {
  return {
    id: call.id,
    assistant_name: call.assistantName,
    campaign_name: call.campaignName,
    type: call.type,
    duration: call.duration,
    assistant_phone_number: call.assistantPhoneNumber,
    client_phone_number: call.clientPhoneNumber,
    status: call.status,
    transcript: call.transcript,
    variables: call.variables,
    evaluation: call.evaluation,
    webhook_response: call.webhookResponse,
    carrier_cost: microsToUsd(call.carrierCostMicros),
    total_cost: microsToUsd(call.totalCostMicros),
    answered_by: call.answeredBy,
    recording_url: recordingUrl(call, links),
    created_at: sqlTimestamp(call.createdAt),
    updated_at: sqlTimestamp(call.updatedAt),
    turns: call.turns,
    transfers: call.transfers,
    end_reason: call.endReason,
    answered_at: sqlTimestamp(call.answeredAt),
    ended_at: sqlTimestamp(call.endedAt),
  };
}
