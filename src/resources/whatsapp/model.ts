import { Model } from 'objection';

export const SENDER_STATUSES = ['online', 'offline'] as const;
export const QUALITY_RATINGS = ['high', 'medium', 'low', 'unknown'] as const;
export const TEMPLATE_STATUSES = ['approved', 'pending', 'rejected'] as const;
export const TEMPLATE_CATEGORIES = ['marketing', 'utility', 'authentication'] as const;

/** One of a user's numbers speaking WhatsApp (migrations/20261130200001_create_whatsapp.ts). */
export class WhatsAppSender extends Model {
  static override tableName = 'whatsapp_senders';

  declare id: number;
  declare userId: number;
  declare phoneNumberId: number;
  /** Answers the customers' messages (deleting the assistant deletes the sender, as it does its conversations). */
  declare assistantId: number;
  /** E.164. */
  declare phoneNumber: string;
  declare displayName: string;
  declare status: typeof SENDER_STATUSES[number];
  declare qualityRating: typeof QUALITY_RATINGS[number];
  /** Meta's business-initiated conversations a day; null: unlimited. */
  declare messagingLimit: number | null;
  /** Encrypted with the app key (purpose SENDER_SECRET_PURPOSE). */
  declare signingSecret: string;
  /** Where read receipts go (W3); null: none. */
  declare webhookUrl: string | null;
  declare createdAt: Date;
  declare updatedAt: Date;
}

export class WhatsAppTemplate extends Model {
  static override tableName = 'whatsapp_templates';

  declare id: number;
  declare senderId: number;
  declare name: string;
  declare language: string;
  declare category: typeof TEMPLATE_CATEGORIES[number];
  declare status: typeof TEMPLATE_STATUSES[number];
  /** With `{{1}}`, `{{2}}`… placeholders. */
  declare bodyText: string;
  /** The carrier's id of the approved template (Twilio's Content SID, `HX…`); null: sent as its rendered text. */
  declare contentSid: string | null;
  declare createdAt: Date;
  declare updatedAt: Date;
}

/**
 * Where an outbound message is: `queued` once the carrier took it, then as it reports (`read` last); `received`
 * for the customers' messages. `failed` never left the carrier and is refunded.
 */
export type WhatsAppStatus = 'queued' | 'sent' | 'delivered' | 'read' | 'failed' | 'undelivered' | 'received';

export class WhatsAppMessage extends Model {
  static override tableName = 'whatsapp_messages';

  declare id: number;
  declare userId: number;
  declare senderId: number | null;
  declare conversationId: number | null;
  declare templateId: number | null;
  declare direction: 'outbound' | 'inbound';
  declare fromNumber: string;
  declare toNumber: string;
  declare body: string;
  declare costMicros: number;
  declare status: WhatsAppStatus;
  declare errorCode: string | null;
  declare errorMessage: string | null;
  declare provider: string;
  declare providerMessageId: string | null;
  declare createdAt: Date;
  declare updatedAt: Date;
}
