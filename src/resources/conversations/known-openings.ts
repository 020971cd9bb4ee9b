import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { prepared } from '../../db/prepared.ts';
import type { Conversation, ConversationType } from './model.ts';

/**
 * What a conversation's start needs of its assistant, as this process last read it (statements.ts,
 * `startingProfile`): its ids, and what its opening line is made of, in the database's own values.
 */
export interface KnownOpening {
  assistantId: number;
  userId: number;
  initialMessage: string;
  variables: Record<string, unknown>;
}

/** The most assistants a process remembers the opening of; past it, the one remembered first is forgotten. */
const MOST_REMEMBERED = 1_000;

const remembered = new WeakMap<Knex, Map<string, KnownOpening>>();

function openings(knex: Knex): Map<string, KnownOpening> {
  let known = remembered.get(knex);
  if (!known) remembered.set(knex, known = new Map<string, KnownOpening>());
  return known;
}

/** The opening of the assistant with this uuid as last read here, if any. */
export function knownOpening(knex: Knex, assistantUuid: string): KnownOpening | undefined {
  return openings(knex).get(assistantUuid);
}

export function rememberOpening(knex: Knex, assistantUuid: string, opening: KnownOpening): void {
  const known = openings(knex);
  known.delete(assistantUuid);
  if (known.size >= MOST_REMEMBERED) known.delete(known.keys().next().value!);
  known.set(assistantUuid, opening);
}

/**
 * Starts a conversation with the opening line made from `known`, in one statement, if the assistant still has
 * that opening (its message and variables, under the same owner) and, for a widget conversation, its owner a
 * positive balance: the statement checks both in the snapshot it inserts in, so a line made from an opening
 * changed since can never be stored. No row: nothing was written, and the caller reads the assistant afresh
 * (which also tells a missing assistant or a balance used up, with their errors).
 */
export async function insertIfOpeningCurrent(knex: Knex, input: {
  assistantUuid: string; known: KnownOpening; type: ConversationType; variables: Record<string, unknown>; opening: string | undefined;
}): Promise<Pick<Conversation, 'id' | 'uuid'> | undefined> {
  const { known, opening = null } = input;
  const { rows } = await prepared('conversation-insert-if-opening-current', knex.raw<{ rows: Pick<Conversation, 'id' | 'uuid'>[] }>(`
    with assistant as (
      select a.id, a.user_id from assistants a
      where a.uuid = ? and a.id = ? and a.user_id = ? and a.initial_message = ? and a.variables = ?::jsonb
        and (?::text <> 'widget' or coalesce((select b.micros from user_balances b where b.user_id = a.user_id), 0) > 0)
    ),
    conversation as (
      insert into conversations (uuid, user_id, assistant_id, type, variables, message_count)
      select ?, user_id, id, ?, ?::jsonb, case when ?::text is null then 0 else 1 end from assistant
      returning id, uuid
    ),
    opening as (
      insert into conversation_messages (conversation_id, role, content)
      select id, 'assistant', ?::text from conversation where ?::text is not null
    )
    select id, uuid from conversation`,
  [
    input.assistantUuid, known.assistantId, known.userId, known.initialMessage, JSON.stringify(known.variables), input.type,
    randomUUID(), input.type, JSON.stringify(input.variables), opening, opening, opening,
  ]));
  return rows[0];
}
