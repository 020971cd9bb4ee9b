import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { HistoryEntry } from '../../agent/turn-input.ts';
import { rechargeArmedExpression } from '../../billing/auto-recharge.ts';
import { chargeExpression } from '../../billing/ledger.ts';
import { asynchronousCommit } from '../../db/commit.ts';
import { fragment, prepared } from '../../db/prepared.ts';
import { agentProfileQuery, type StoredProfile } from '../assistants/profile.ts';
import type { Conversation, ConversationType } from './model.ts';
import { CLAIMED_TIMER, MESSAGE_STORED_SET } from './quiet-timer.ts';

/**
 * The statements of a chat turn, each one round trip and each a named prepared statement (db/prepared.ts): a
 * turn runs two (accepting the message, storing the reply), a conversation's start one more (known-assistants.ts) or two.
 */

/** What one user message in a widget (or api) conversation costs: 0.01 USD. */
export const WIDGET_MESSAGE_MICROS = 10_000;

/** The assistant's profile by its uuid, with its owner's balance; undefined when there is no such assistant. */
export async function startingProfile(knex: Knex, assistantUuid: string): Promise<{ profile: StoredProfile; balanceMicros: number } | undefined> {
  const { rows } = await prepared('conversation-starting-profile', knex.raw<{ rows: { profile: StoredProfile; balanceMicros: number }[] }>(`
    with input as (select cast(? as uuid) as uuid)
    select p.profile, coalesce((select b.micros from user_balances b where b.user_id = (p.profile->>'userId')::bigint), 0)::float8 as "balanceMicros"
    from (${fragment(knex, 'profile-by-input-uuid', () => agentProfileQuery(knex, { uuid: knex.raw('(select uuid from input)') }))}) p`,
  [assistantUuid]));
  return rows[0];
}

/** A conversation to insert: its kind, the variables it was started with, and its opening line, if any. */
export interface NewConversation {
  type: ConversationType;
  variables: Record<string, unknown>;
  opening: string | undefined;
}

/**
 * Inserts a conversation with its opening line, if any, in one statement named `name`, for the assistant the
 * query `assistant` selects (its `id` and `user_id`, with `bindings`): when that selects no row, nothing is
 * written and the result is undefined.
 */
export async function insertConversationOf(
  knex: Knex, name: string, assistant: { sql: string; bindings: Knex.RawBinding[] }, input: NewConversation,
): Promise<Pick<Conversation, 'id' | 'uuid'> | undefined> {
  // An opening that fills to nothing is none: no empty line to store, show or send to the model.
  const opening = input.opening || null;
  const { rows } = await prepared(name, knex.raw<{ rows: Pick<Conversation, 'id' | 'uuid'>[] }>(`
    with assistant as (${assistant.sql}),
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
  [...assistant.bindings, randomUUID(), input.type, JSON.stringify(input.variables), opening, opening, opening]));
  return rows[0];
}

/** A new conversation of an assistant already read, with its opening line, if any, in one statement. */
export async function insertConversation(
  knex: Knex, input: NewConversation & { userId: number; assistantId: number },
): Promise<Pick<Conversation, 'id' | 'uuid'>> {
  const assistant = { sql: 'select ?::bigint as id, ?::bigint as user_id', bindings: [input.assistantId, input.userId] };
  return (await insertConversationOf(knex, 'conversation-insert', assistant, input))!;
}

/** What a turn needs of its conversation. */
export type TurnConversation = Pick<Conversation, 'id' | 'uuid' | 'userId' | 'assistantId' | 'type' | 'variables' | 'aiEnabled'>;

export interface AcceptedRow extends TurnConversation {
  /** Null when the balance did not cover the charge: nothing was written. */
  messageId: number | null;
  /** The messages before this one (the statement does not see its own insert). */
  history: HistoryEntry[];
  /** The assistant's profile, read in the same snapshot (the foreign key makes it exist). */
  profile: StoredProfile;
  inactivityTimeoutMinutes: number;
  /** The message claimed the conversation's inactivity timer, which must now be started (quiet-timer.ts). */
  startsTimer: boolean;
  /** The owner's auto-recharge is on and armed: after the charge it checks its threshold. */
  rechargeArmed: boolean;
}

/**
 * Stores the user message, charges it (all but test conversations) and counts it in one statement, which also
 * reads the conversation, its history and its assistant's profile: the message is stored only if the charge
 * went through, and a failure leaves nothing half-written. No row: there is no such conversation.
 *
 * When the assistant will reply (its AI is on and `replyFollows`), it commits without waiting for the disk
 * (db/commit.ts), which also lets go of the owner's balance row at once instead of after an fsync: the reply's
 * statement commits durably, and with it this one, before the client is answered, and a turn that fails is undone
 * by a durable transaction. A message nobody replies to now is answered at once, so it commits durably.
 */
export async function storeUserMessage(
  knex: Knex, uuid: string, message: string, chargeKey: string, replyFollows: boolean,
): Promise<(AcceptedRow & { asynchronous: string }) | undefined> {
  const charge = chargeExpression(knex, {
    userId: knex.raw('c.user_id'),
    amountMicros: WIDGET_MESSAGE_MICROS,
    kind: 'conversation_message',
    reference: `conversation:${uuid}`,
    description: 'Widget chat message',
    idempotencyKey: chargeKey,
  });
  // The counters are increments in SQL: messages of one conversation may arrive at the same time.
  const { rows } = await prepared('conversation-store-user-message', knex.raw<{ rows: (AcceptedRow & { asynchronous: string })[] }>(`
    with c as (select id, uuid, user_id, assistant_id, type, variables, ai_enabled from conversations where uuid = ?),
    charge as (
      select c.id as conversation_id, c.type <> 'test' as charged, case when c.type <> 'test' then ? end as entry_id from c
    ),
    message as (
      insert into conversation_messages (conversation_id, role, content)
      select conversation_id, 'user', ? from charge where not charged or entry_id is not null
      returning id, conversation_id
    ),
    counted as (
      update conversations
      set message_count = message_count + 1, total_cost_micros = total_cost_micros + case when charged then ? else 0 end, updated_at = now(),
        ended_at = null, ${MESSAGE_STORED_SET}
      from message, charge where conversations.id = message.conversation_id
      returning ${CLAIMED_TIMER} as starts_timer
    )
    select c.id, c.uuid, c.user_id as "userId", c.assistant_id as "assistantId", c.type, c.variables, c.ai_enabled as "aiEnabled",
      (select id from message) as "messageId",
      coalesce((select starts_timer from counted), false) as "startsTimer",
      ${fragment(knex, 'recharge-armed-by-c', () => rechargeArmedExpression(knex, knex.raw('c.user_id')))} as "rechargeArmed",
      (select conversation_inactivity_timeout from assistants a where a.id = c.assistant_id) as "inactivityTimeoutMinutes",
      (select coalesce(json_agg(json_build_object('role', m.role, 'content', m.content) order by m.id), '[]')
        from conversation_messages m where m.conversation_id = c.id) as history,
      (${fragment(knex, 'profile-by-c', () => agentProfileQuery(knex, { id: knex.raw('c.assistant_id') }))}) as profile,
      ${asynchronousCommit('c.ai_enabled and ?::boolean')} as asynchronous
    from c`,
  [uuid, charge, message, WIDGET_MESSAGE_MICROS, replyFollows]));
  return rows[0];
}

/**
 * Stores the assistant's reply and counts it; a turn that called end-call ends the conversation. Answers whether
 * the reply claimed the inactivity timer (the conversation went quiet and ended while the model answered).
 */
export async function storeReplyMessage(knex: Knex, input: {
  conversationId: number; content: string; functionCalls: unknown[]; endCall: boolean;
}): Promise<boolean> {
  const { rows } = await prepared('conversation-store-reply', knex.raw<{ rows: { startsTimer: boolean }[] }>(`
    with message as (
      insert into conversation_messages (conversation_id, role, content, function_calls) values (?, 'assistant', ?, ?::jsonb)
    )
    update conversations
    set message_count = message_count + 1, updated_at = now(), ended_at = case when ?::boolean then now() else ended_at end, ${MESSAGE_STORED_SET}
    where id = ?
    returning ${CLAIMED_TIMER} as "startsTimer"`,
  [input.conversationId, input.content, input.functionCalls.length ? JSON.stringify(input.functionCalls) : null, input.endCall, input.conversationId]));
  return rows[0]?.startsTimer ?? false;
}
