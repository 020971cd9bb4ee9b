import { Model } from 'objection';

/**
 * `api` conversations are those of AI replies for other channels (POST /user/ai/generate-reply); `whatsapp` ones
 * a WhatsApp sender's chat with one customer (resources/whatsapp).
 */
export type ConversationType = 'widget' | 'test' | 'api' | 'whatsapp';

/** A function the assistant called for a message, as the interface records it: `{name, arguments, result}`. */
export interface StoredFunctionCall {
  name: string;
  arguments: Record<string, unknown>;
  result: unknown;
}

export class Conversation extends Model {
  static override tableName = 'conversations';
  static override jsonAttributes = ['variables', 'evaluation'];

  declare id: number;
  declare uuid: string;
  declare userId: number;
  declare assistantId: number;
  declare type: ConversationType;
  declare variables: Record<string, unknown>;
  /** False while a person answers instead of the assistant (human takeover): user messages are stored, not replied to. */
  declare aiEnabled: boolean;
  /** The integration's customer identifier of an `api` conversation; null for the others. */
  declare externalIdentifier: string | null;
  /** A `whatsapp` conversation's sender, customer and when the customer last wrote (its 24-hour window). */
  declare whatsappSenderId: number | null;
  declare customerPhone: string | null;
  declare customerName: string | null;
  declare lastCustomerMessageAt: Date | null;
  declare messageCount: number;
  declare totalCostMicros: number;
  /** What the post-conversation evaluation filled in from the assistant's `post_call_schema` once it went quiet. */
  declare evaluation: Record<string, unknown> | null;
  /** Set when it went quiet (or its assistant ended it); cleared by the next message, which reopens it. */
  declare endedAt: Date | null;
  declare createdAt: Date;
  declare updatedAt: Date;
}

export class ConversationMessage extends Model {
  static override tableName = 'conversation_messages';
  static override jsonAttributes = ['functionCalls'];

  declare id: number;
  declare conversationId: number;
  declare role: 'user' | 'assistant';
  declare content: string;
  declare functionCalls: StoredFunctionCall[] | null;
  /** An assistant message an operator wrote (POST /user/conversations/{uuid}/messages), not the model. */
  declare human: boolean;
  declare createdAt: Date;
}
