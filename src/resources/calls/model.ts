import { Model } from 'objection';
import type { CallTransfer } from '../../calls/transfers.ts';
import type { CallTurn } from '../../voice/hooks.ts';

export const CALL_TYPES = ['inbound', 'outbound', 'web'] as const;
export const CALL_STATUSES = [
  'initiated', 'ringing', 'busy', 'in-progress', 'ended', 'completed', 'ended_by_customer', 'ended_by_assistant', 'no-answer', 'failed',
] as const;
/** A call in one of these is still live: deleting its record ends it first. */
export const LIVE_STATUSES: readonly CallStatus[] = ['initiated', 'ringing', 'in-progress'];

export type CallType = typeof CALL_TYPES[number];
export type CallStatus = typeof CALL_STATUSES[number];

/** A call as stored (migrations/20261123000001_create_calls.ts says what each column holds). */
export interface CallRecord {
  id: number;
  userId: number;
  assistantId: number | null;
  assistantName: string;
  campaignId: number | null;
  campaignName: string | null;
  leadId: number | null;
  type: CallType;
  status: CallStatus;
  assistantPhoneNumber: string | null;
  clientPhoneNumber: string | null;
  duration: number;
  transcript: string;
  turns: CallTurn[];
  /** Transfers to numbers and to other assistants, oldest first (calls/transfers.ts). */
  transfers: CallTransfer[];
  variables: Record<string, unknown>;
  evaluation: Record<string, unknown> | null;
  webhookResponse: Record<string, unknown> | null;
  carrierCostMicros: number;
  totalCostMicros: number;
  answeredBy: 'human' | 'machine' | 'unknown' | null;
  recordingKey: string | null;
  endReason: string | null;
  answeredAt: Date | null;
  endedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

// Declaration merging gives the model every column as a field without repeating the list.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface Call extends CallRecord {}
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class Call extends Model {
  static override tableName = 'calls';
  static override jsonAttributes = ['turns', 'transfers', 'variables', 'evaluation', 'webhookResponse'];
}
