import type { Knex } from 'knex';
import { NotFoundError } from '../../lib/errors.ts';
import { isUuid } from '../../lib/uuid.ts';
import { ConversationMessage, type Conversation } from './model.ts';
import { forgetConversation } from './early-reply.ts';
import { CLAIMED_TIMER, MESSAGE_STORED_SET } from './quiet-timer.ts';

/**
 * Human takeover (anchor §12.5): switches the assistant's replies in one of the caller's conversations off or
 * back on. Someone else's conversation is "not found", as one that does not exist.
 */
export async function setAiEnabled(knex: Knex, input: { userId: number; uuid: string; enabled: boolean }): Promise<void> {
  const updated = isUuid(input.uuid)
    ? await knex('conversations').where({ uuid: input.uuid, userId: input.userId }).update({ aiEnabled: input.enabled, updatedAt: knex.fn.now() })
    : 0;
  if (updated === 0) throw new NotFoundError('Conversation not found');
  // Its messages are not replied to now, or a person answered them: none is asked early from what was remembered.
  forgetConversation(knex, input.uuid);
}

/** An operator's message as stored, with what its conversation's inactivity timer needs. */
export interface StoredOperatorMessage {
  message: ConversationMessage;
  conversation: Pick<Conversation, 'id' | 'uuid' | 'userId' | 'assistantId' | 'type'>;
  /** The assistant's `conversation_inactivity_timeout`, read with the message. */
  inactivityTimeoutMinutes: number;
  /** The message claimed the conversation's inactivity timer, which the caller starts (quiet-timer.ts). */
  startsTimer: boolean;
}

/**
 * An operator's answer in one of the caller's conversations: an assistant message marked `human`, stored and
 * counted in one statement. It is not charged (the charge is for the user's messages) and runs no model. Like a
 * user's message it reopens an ended conversation and puts its end off; it may claim the inactivity timer,
 * which the caller then starts.
 */
export async function storeOperatorMessage(knex: Knex, input: { userId: number; uuid: string; content: string }): Promise<StoredOperatorMessage> {
  if (!isUuid(input.uuid)) throw new NotFoundError('Conversation not found');
  const { rows } = await knex.raw<{ rows: (StoredOperatorMessage['conversation'] & { messageId: number; inactivityTimeoutMinutes: number; startsTimer: boolean })[] }>(`
    with c as (
      update conversations set message_count = message_count + 1, updated_at = now(), ended_at = null, ${MESSAGE_STORED_SET}
      where uuid = ? and user_id = ? returning id, uuid, user_id, assistant_id, type, ${CLAIMED_TIMER} as starts_timer
    ),
    m as (
      insert into conversation_messages (conversation_id, role, content, human)
      select id, 'assistant', ?, true from c
      returning id
    )
    select m.id as "messageId", c.id, c.uuid, c.user_id as "userId", c.assistant_id as "assistantId", c.type, c.starts_timer as "startsTimer",
      (select conversation_inactivity_timeout from assistants a where a.id = c.assistant_id) as "inactivityTimeoutMinutes"
    from m, c`,
  [input.uuid, input.userId, input.content]);
  const row = rows[0];
  if (!row) throw new NotFoundError('Conversation not found');
  forgetConversation(knex, input.uuid);
  const { messageId, inactivityTimeoutMinutes, startsTimer, ...conversation } = row;
  const message = await ConversationMessage.query(knex).findById(messageId).throwIfNotFound();
  return { message, conversation, inactivityTimeoutMinutes, startsTimer };
}
