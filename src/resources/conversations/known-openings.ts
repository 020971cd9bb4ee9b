import type { Knex } from 'knex';
import type { Conversation } from './model.ts';
import { insertConversationOf, type NewConversation } from './statements.ts';

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
export function insertIfOpeningCurrent(
  knex: Knex, input: NewConversation & { assistantUuid: string; known: KnownOpening },
): Promise<Pick<Conversation, 'id' | 'uuid'> | undefined> {
  const { known } = input;
  const assistant = {
    sql: `select a.id, a.user_id from assistants a
      where a.uuid = ? and a.id = ? and a.user_id = ? and a.initial_message = ? and a.variables = ?::jsonb
        and (?::text <> 'widget' or coalesce((select b.micros from user_balances b where b.user_id = a.user_id), 0) > 0)`,
    bindings: [input.assistantUuid, known.assistantId, known.userId, known.initialMessage, JSON.stringify(known.variables), input.type],
  };
  return insertConversationOf(knex, 'conversation-insert-if-opening-current', assistant, input);
}
