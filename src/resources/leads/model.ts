import { Model } from 'objection';

/**
 * Every status a lead can have (anchor §14, the list filter's values). A lead is created `created`; the API
 * sets the first three (SETTABLE_LEAD_STATUSES); the campaign workflow moves leads through the others.
 */
export const LEAD_STATUSES = ['created', 'scheduled', 'processing', 'completed', 'rescheduled', 'reached-max-retries', 'blacklisted'] as const;
export type LeadStatus = typeof LEAD_STATUSES[number];
export const SETTABLE_LEAD_STATUSES = ['created', 'completed', 'reached-max-retries'] as const satisfies readonly LeadStatus[];

export class Lead extends Model {
  static override tableName = 'leads';
  static override jsonAttributes = ['variables'];

  declare id: number;
  declare userId: number;
  declare campaignId: number;
  /** The main lead of a secondary contact; null on a main lead. */
  declare primaryLeadId: number | null;
  /** 0 on a main lead; a secondary contact's place (1, 2, …) in the order its lead's contacts are called. */
  declare contactOrder: number;
  /** E.164. */
  declare phoneNumber: string;
  declare variables: Record<string, unknown>;
  declare status: LeadStatus;
  /** Calls made to this lead so far (the campaign workflow's count). */
  declare attempts: number;
  /** When the workflow is to call it next; null when it is not scheduled. */
  declare nextAttemptAt: Date | null;
  declare lastCallId: number | null;
  declare createdAt: Date;
  declare updatedAt: Date;
}
