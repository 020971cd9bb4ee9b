import { Model } from 'objection';
import type { SmsEncoding } from '../../billing/sms-pricing.ts';

export type SmsDirection = 'outbound' | 'inbound';

/**
 * Where a message is: `pending` (charged, not yet with the carrier), then as the carrier reports it; `received`
 * for inbound messages. `delivered`, `undelivered` and `failed` are final.
 */
export const SMS_STATUSES = ['pending', 'queued', 'sending', 'sent', 'delivered', 'undelivered', 'failed', 'received'] as const;
export type SmsStatus = typeof SMS_STATUSES[number];

/** A text message a user's number sent or received (migrations/20261125100002_create_sms_messages.ts). */
export class SmsMessage extends Model {
  static override tableName = 'sms_messages';

  declare id: number;
  declare userId: number;
  declare phoneNumberId: number | null;
  declare direction: SmsDirection;
  /** E.164. */
  declare fromNumber: string;
  declare toNumber: string;
  declare body: string;
  declare encoding: SmsEncoding;
  declare segments: number;
  /** What the user paid; 0 once refunded, and for inbound messages. */
  declare costMicros: number;
  declare status: SmsStatus;
  /** The carrier's error code (Twilio's), when it reported one. */
  declare errorCode: string | null;
  /** Why the carrier would not take the message. */
  declare errorMessage: string | null;
  declare provider: string | null;
  declare providerMessageId: string | null;
  declare chargeKey: string | null;
  declare idempotencyKey: string | null;
  declare createdAt: Date;
  declare updatedAt: Date;
}
