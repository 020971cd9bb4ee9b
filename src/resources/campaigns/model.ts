import { Model } from 'objection';
import type { Weekday } from '../../campaigns/window.ts';

/** `draft` until started; `in-progress` and `stopped` by the start and stop actions; `completed` when no lead is left. */
export const CAMPAIGN_STATUSES = ['draft', 'in-progress', 'stopped', 'completed'] as const;
export type CampaignStatus = typeof CAMPAIGN_STATUSES[number];

export class Campaign extends Model {
  static override tableName = 'campaigns';
  static override jsonAttributes = ['allowedDays'];

  declare id: number;
  declare userId: number;
  /** Null once the assistant is deleted: the campaign cannot dial until it is given another. */
  declare assistantId: number | null;
  declare name: string;
  declare status: CampaignStatus;
  /** IANA time zone of the calling window. */
  declare timezone: string;
  declare maxCallsInParallel: number;
  /** `HH:MM:SS`. */
  declare allowedHoursStartTime: string;
  declare allowedHoursEndTime: string;
  declare allowedDays: Weekday[];
  declare maxRetries: number;
  /** Minutes. */
  declare retryInterval: number;
  declare retryOnVoicemail: boolean;
  declare retryOnGoalIncomplete: boolean;
  declare goalCompletionVariable: string | null;
  declare markCompleteWhenNoLeads: boolean;
  declare createdAt: Date;
  declare updatedAt: Date;
}
