import { microsToUsd } from '../../lib/money.ts';
import type { SecretBox } from '../../lib/secrets.ts';
import { signPath } from '../../lib/signed-links.ts';
import { sqlTimestamp } from '../../lib/time.ts';
import type { CallRecord } from './model.ts';

/**
 * How long a recording link works: long enough for a post-call webhook's consumer to fetch the file after the
 * delivery's retries, short enough that a leaked link dies within a day. Each read of a call signs a fresh one.
 */
export const RECORDING_LINK_SECONDS = 24 * 60 * 60;

export interface RecordingLinks {
  secrets: SecretBox;
  /** Base URL of the API's clients. */
  publicUrl: string;
  now: Date;
}

/** The path of a call's recording under `/api`, the part of the link that is signed. */
export function recordingPath(callId: number): string {
  return `/api/recordings/${callId}`;
}

export function recordingUrl(call: Pick<CallRecord, 'id' | 'recordingKey'>, links: RecordingLinks): string | null {
  if (!call.recordingKey) return null;
  const expiresAt = new Date(links.now.getTime() + RECORDING_LINK_SECONDS * 1000);
  return `${links.publicUrl}${signPath(links.secrets, recordingPath(call.id), expiresAt)}`;
}

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
