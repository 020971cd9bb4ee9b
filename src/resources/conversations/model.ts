import { Model } from 'objection';

export type ConversationType = 'widget' | 'test';

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
  declare createdAt: Date;
}
