import type { Knex } from 'knex';
import type { StoredProfile } from '../assistants/profile.ts';
import type { Conversation } from './model.ts';
import { insertConversationOf, type NewConversation } from './statements.ts';

/**
 * The assistants' profiles as this process last read them, by uuid: with a conversation's start
 * (statements.ts, `startingProfile`) or with a message's statement, which reads the profile in its snapshot. A
 * start makes its opening line from the profile remembered, and a message sends its model request early
 * (early-reply.ts); neither trusts it: the start inserts only if the opening is still current, and the early
 * request is taken only if it is the one the turn would make.
 */

/** The most assistants a process remembers; past it, the one remembered longest ago is forgotten. */
const MOST_REMEMBERED = 1_000;

const remembered = new WeakMap<Knex, Map<string, StoredProfile>>();

function assistants(knex: Knex): Map<string, StoredProfile> {
  let known = remembered.get(knex);
  if (!known) remembered.set(knex, known = new Map<string, StoredProfile>());
  return known;
}

/** The profile of the assistant with this uuid as last read here, if any. */
export function knownAssistant(knex: Knex, assistantUuid: string): StoredProfile | undefined {
  return assistants(knex).get(assistantUuid);
}

export function rememberAssistant(knex: Knex, profile: StoredProfile): void {
  const known = assistants(knex);
  known.delete(profile.uuid);
  if (known.size >= MOST_REMEMBERED) known.delete(known.keys().next().value!);
  known.set(profile.uuid, profile);
}

/**
 * Starts a conversation with the opening line made from `known`, in one statement, if the assistant still has
 * that opening (its message and variables, under the same owner) and, for a widget conversation, its owner a
 * positive balance: the statement checks both in the snapshot it inserts in, so a line made from an opening
 * changed since can never be stored. No row: nothing was written, and the caller reads the assistant afresh
 * (which also tells a missing assistant or a balance used up, with their errors).
 */
export function insertIfOpeningCurrent(
  knex: Knex, input: NewConversation & { known: StoredProfile },
): Promise<Pick<Conversation, 'id' | 'uuid'> | undefined> {
  const { known } = input;
  const assistant = {
    sql: `select a.id, a.user_id from assistants a
      where a.uuid = ? and a.id = ? and a.user_id = ? and a.initial_message = ? and a.variables = ?::jsonb
        and (?::text <> 'widget' or coalesce((select b.micros from user_balances b where b.user_id = a.user_id), 0) > 0)`,
    bindings: [known.uuid, known.id, known.userId, known.initialMessage, JSON.stringify(known.variables ?? {}), input.type],
  };
  return insertConversationOf(knex, 'conversation-insert-if-opening-current', assistant, input);
}
