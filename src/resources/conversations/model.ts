import { Model } from 'objection';
import type { FunctionCallRecord } from '../../agent/turn.ts';

export type ConversationType = 'widget' | 'test';

export class Conversation extends Model {
  static override tableName = 'conversations';
  static override jsonAttributes = ['variables'];

  declare id: number;
  declare uuid: string;
  declare userId: number;
  declare assistantId: number;
  declare type: ConversationType;
  declare variables: Record<string, unknown>;
  declare messageCount: number;
  declare totalCostMicros: number;
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
  declare functionCalls: FunctionCallRecord[] | null;
  declare createdAt: Date;
}
