import type { Knex } from 'knex';
import { NotFoundError } from '../../lib/errors.ts';
import { isUuid } from '../../lib/uuid.ts';
import { ConversationMessage } from './model.ts';

/**
 * Human takeover (anchor §12.5): switches the assistant's replies in one of the caller's conversations off or
 * back on. Someone else's conversation is "not found", as one that does not exist.
 */
export async function setAiEnabled(knex: Knex, input: { userId: number; uuid: string; enabled: boolean }): Promise<void> {
  const updated = isUuid(input.uuid)
    ? await knex('conversations').where({ uuid: input.uuid, userId: input.userId }).update({ aiEnabled: input.enabled, updatedAt: knex.fn.now() })
    : 0;
  if (updated === 0) throw new NotFoundError('Conversation not found');
}

/**
 * An operator's answer in one of the caller's conversations: an assistant message marked `human`, stored and
 * counted in one statement. It is not charged (the charge is for the user's messages) and runs no model.
 */
export async function storeOperatorMessage(knex: Knex, input: { userId: number; uuid: string; content: string }): Promise<ConversationMessage> {
  if (!isUuid(input.uuid)) throw new NotFoundError('Conversation not found');
  const { rows } = await knex.raw<{ rows: { id: number }[] }>(`
    with c as (
      update conversations set message_count = message_count + 1, updated_at = now()
      where uuid = ? and user_id = ? returning id
    )
    insert into conversation_messages (conversation_id, role, content, human)
    select id, 'assistant', ?, true from c
    returning id`,
  [input.uuid, input.userId, input.content]);
  const row = rows[0];
  if (!row) throw new NotFoundError('Conversation not found');
  return ConversationMessage.query(knex).findById(row.id).throwIfNotFound();
}
