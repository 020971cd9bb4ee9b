import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { AgentProfile } from '../../agent/profile.ts';
import { buildTurnInput, openingLine, type HistoryEntry } from '../../agent/turn-input.ts';
import { AgentTurn, type FunctionCallRecord, type TurnEvent, type TurnResult } from '../../agent/turn.ts';
import { InsufficientBalanceError, NotFoundError, ProviderFailedError, ServiceUnavailableError } from '../../lib/errors.ts';
import type { SafeFetch } from '../../lib/safe-fetch.ts';
import type { SecretBox } from '../../lib/secrets.ts';
import { isUuid } from '../../lib/uuid.ts';
import type { Logger } from '../../logger.ts';
import type { EmbeddingsProvider } from '../../providers/embeddings/types.ts';
import { LanguageModelError, type LanguageModel } from '../../providers/llm/types.ts';
import { balanceMicros, chargeExpression, recordEntry } from '../../billing/ledger.ts';
import { assistantPorts } from '../assistants/ports.ts';
import { agentProfileQuery, loadAgentProfile, toAgentProfile, type StoredProfile } from '../assistants/profile.ts';
import { Conversation, ConversationMessage, type ConversationType } from './model.ts';

export interface ConversationDeps {
  knex: Knex;
  secrets: SecretBox;
  /** The guarded client the assistants' HTTP tools call through. */
  safeFetch: SafeFetch;
  embeddings: EmbeddingsProvider | undefined;
  model: LanguageModel | undefined;
  /** The model to use when an assistant's model is not in the catalog. */
  defaultModel: string;
  logger: Logger;
  /** Told, without being awaited, that the user's balance was charged (auto-recharge checks its threshold). */
  afterCharge?: (userId: number) => Promise<void>;
  /**
   * Told, without being awaited, of each message stored in a widget conversation: its inactivity timer starts
   * again (workflows/conversation-inactivity.ts). A failure is logged; the chat goes on.
   */
  messageStored?: (conversation: QuietConversation) => Promise<void>;
}

/** A widget conversation whose quiet period starts again, and how long it may last. */
export interface QuietConversation {
  id: number;
  uuid: string;
  userId: number;
  assistantId: number;
  /** The assistant's `conversation_inactivity_timeout`. */
  inactivityTimeoutMinutes: number;
}

/** What one user message in a widget (or api) conversation costs: 0.01 USD. */
export const WIDGET_MESSAGE_MICROS = 10_000;

/** Whether a conversation's user messages are charged: all but the owner's free test chats. */
export function isCharged(type: ConversationType): boolean {
  return type !== 'test';
}

export const NO_MODEL_MESSAGE = 'No language model is configured. Set LLM_BASE_URL and LLM_API_KEY.';

async function findConversation(knex: Knex, uuid: string): Promise<Conversation> {
  const conversation = isUuid(uuid) ? await Conversation.query(knex).findOne({ uuid }) : undefined;
  if (!conversation) throw new NotFoundError('Conversation not found');
  return conversation;
}

export async function startConversation(
  deps: ConversationDeps,
  input: { assistantUuid: string; type: ConversationType; variables: Record<string, unknown> },
): Promise<{ conversation: Conversation; history: ConversationMessage[] }> {
  const profile = isUuid(input.assistantUuid) ? await loadAgentProfile(deps, { uuid: input.assistantUuid }) : undefined;
  if (!profile) throw new NotFoundError('Assistant not found');
  if (input.type === 'widget' && await balanceMicros(deps.knex, profile.userId) <= 0) throw new InsufficientBalanceError();
  const opening = openingLine(profile, input.variables);
  return deps.knex.transaction(async (trx) => {
    const conversation = await Conversation.query(trx).insertAndFetch({
      uuid: randomUUID(),
      userId: profile.userId,
      assistantId: profile.assistantId,
      type: input.type,
      variables: input.variables,
      messageCount: opening ? 1 : 0,
    });
    const history = opening
      ? [await ConversationMessage.query(trx).insertAndFetch({ conversationId: conversation.id, role: 'assistant', content: opening, functionCalls: null })]
      : [];
    return { conversation, history };
  });
}

/** A conversation's messages, oldest first, with the WhatsApp sender of a `whatsapp` conversation. */
export async function conversationHistory(knex: Knex, uuid: string): Promise<{
  conversation: Conversation; history: ConversationMessage[]; sender: { displayName: string; phoneNumber: string } | undefined;
}> {
  const conversation = await findConversation(knex, uuid);
  const history = await ConversationMessage.query(knex).where({ conversationId: conversation.id }).orderBy('id');
  const sender = conversation.whatsappSenderId === null ? undefined
    : await knex('whatsapp_senders').where({ id: conversation.whatsappSenderId }).first<{ displayName: string; phoneNumber: string } | undefined>('displayName', 'phoneNumber');
  return { conversation, history, sender };
}

/** What a turn needs of its conversation. */
type TurnConversation = Pick<Conversation, 'id' | 'uuid' | 'userId' | 'assistantId' | 'type' | 'variables' | 'aiEnabled'>;

/** A user message accepted and paid for, waiting for the assistant's reply (none while its AI is disabled). */
export interface PendingTurn {
  conversation: TurnConversation;
  profile: AgentProfile;
  model: LanguageModel;
  userMessageId: number;
  message: string;
  chargeKey: string | undefined;
  history: HistoryEntry[];
  /** The assistant's `conversation_inactivity_timeout`, read with the message. */
  inactivityTimeoutMinutes: number;
}

interface AcceptedRow extends TurnConversation {
  /** Null when the balance did not cover the charge: nothing was written. */
  messageId: number | null;
  /** The messages before this one (the statement does not see its own insert). */
  history: HistoryEntry[];
  /** The assistant's profile, read in the same snapshot (the foreign key makes it exist). */
  profile: StoredProfile;
  inactivityTimeoutMinutes: number;
}

/**
 * Stores the user message, charges it (all but test conversations) and counts it in one statement, which also
 * reads the conversation, its history and its assistant's profile: the message is stored only if the charge
 * went through, and a failure leaves nothing half-written. No row: there is no such conversation.
 */
async function storeUserMessage(knex: Knex, uuid: string, message: string, chargeKey: string): Promise<AcceptedRow | undefined> {
  const charge = chargeExpression(knex, {
    userId: knex.raw('c.user_id'),
    amountMicros: WIDGET_MESSAGE_MICROS,
    kind: 'conversation_message',
    reference: `conversation:${uuid}`,
    description: 'Widget chat message',
    idempotencyKey: chargeKey,
  });
  // The counters are increments in SQL: messages of one conversation may arrive at the same time.
  const { rows } = await knex.raw<{ rows: AcceptedRow[] }>(`
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
        ended_at = null
      from message, charge where conversations.id = message.conversation_id
    )
    select c.id, c.uuid, c.user_id as "userId", c.assistant_id as "assistantId", c.type, c.variables, c.ai_enabled as "aiEnabled",
      (select id from message) as "messageId",
      (select conversation_inactivity_timeout from assistants a where a.id = c.assistant_id) as "inactivityTimeoutMinutes",
      (select coalesce(json_agg(json_build_object('role', m.role, 'content', m.content) order by m.id), '[]')
        from conversation_messages m where m.conversation_id = c.id) as history,
      ? as profile
    from c`,
  [uuid, charge, message, WIDGET_MESSAGE_MICROS, agentProfileQuery(knex, { id: knex.raw('c.assistant_id') })]);
  return rows[0];
}

/**
 * Accepts a user message: stores and charges it. What can refuse it without a write is checked first; a
 * test conversation's message then goes through `admitTest` (its free allowance), and a refusal takes the
 * message back: the one statement that stores it is also what tells the conversation's type, so a widget
 * message costs no extra round trip.
 */
export async function acceptMessage(
  deps: ConversationDeps,
  uuid: string,
  message: string,
  admitTest?: (assistant: { assistantId: number; ownerId: number }) => Promise<void>,
): Promise<PendingTurn> {
  if (!isUuid(uuid)) throw new NotFoundError('Conversation not found');
  if (!deps.model) {
    await findConversation(deps.knex, uuid);
    throw new ServiceUnavailableError(NO_MODEL_MESSAGE);
  }
  const chargeKey = `conversation-message:${randomUUID()}`;
  const accepted = await storeUserMessage(deps.knex, uuid, message, chargeKey);
  if (!accepted) throw new NotFoundError('Conversation not found');
  if (accepted.messageId === null) throw new InsufficientBalanceError();
  const { messageId, history, profile, inactivityTimeoutMinutes, ...conversation } = accepted;
  const turn = {
    conversation,
    profile: toAgentProfile(deps.secrets, profile),
    model: deps.model,
    userMessageId: messageId,
    message,
    chargeKey: isCharged(conversation.type) ? chargeKey : undefined,
    history,
    inactivityTimeoutMinutes,
  };
  if (turn.chargeKey) void deps.afterCharge?.(conversation.userId);
  restartQuietPeriod(deps, turn.conversation, turn.inactivityTimeoutMinutes);
  if (conversation.type === 'test' && admitTest) {
    try {
      await admitTest({ assistantId: turn.profile.assistantId, ownerId: conversation.userId });
    } catch (error) {
      await abandon(deps, turn);
      throw error;
    }
  }
  return turn;
}

/**
 * A widget or WhatsApp conversation's inactivity timer starts again with each message stored, the user's, the
 * assistant's or an operator's (a test conversation has none): told without waiting, so the chat is never slower
 * for it, nor failed by it.
 */
export function restartQuietPeriod(
  deps: Pick<ConversationDeps, 'messageStored' | 'logger'>,
  conversation: Pick<Conversation, 'id' | 'uuid' | 'userId' | 'assistantId' | 'type'>,
  inactivityTimeoutMinutes: number,
): void {
  if ((conversation.type !== 'widget' && conversation.type !== 'whatsapp') || !deps.messageStored) return;
  const { id, uuid, userId, assistantId } = conversation;
  deps.messageStored({ id, uuid, userId, assistantId, inactivityTimeoutMinutes }).catch((error: unknown) => {
    deps.logger.warn({ err: error, conversationId: id }, "the conversation's inactivity timer could not be started again");
  });
}

/** Undoes an accepted message whose reply failed: the message goes, and the charge is refunded. */
async function abandon(deps: ConversationDeps, turn: PendingTurn): Promise<void> {
  await deps.knex.transaction(async (trx) => {
    await ConversationMessage.query(trx).deleteById(turn.userMessageId);
    if (turn.chargeKey) {
      await recordEntry(trx, {
        userId: turn.conversation.userId,
        amountMicros: WIDGET_MESSAGE_MICROS,
        kind: 'conversation_refund',
        reference: `conversation:${turn.conversation.uuid}`,
        description: 'Refund: the reply failed',
        idempotencyKey: `refund:${turn.chargeKey}`,
      });
    }
    await trx('conversations').where({ id: turn.conversation.id }).update({
      messageCount: trx.raw('message_count - 1'),
      totalCostMicros: trx.raw('total_cost_micros - ?', [turn.chargeKey ? WIDGET_MESSAGE_MICROS : 0]),
    });
  });
}

/** Stores the assistant's reply and counts it; a turn that called end-call ends the conversation. */
async function storeReply(deps: ConversationDeps, turn: PendingTurn, result: TurnResult): Promise<void> {
  await deps.knex.raw(`
    with message as (
      insert into conversation_messages (conversation_id, role, content, function_calls) values (?, 'assistant', ?, ?::jsonb)
    )
    update conversations
    set message_count = message_count + 1, updated_at = now(), ended_at = case when ? then now() else ended_at end
    where id = ?`,
  [turn.conversation.id, result.delivered, result.functionCalls.length ? JSON.stringify(result.functionCalls) : null, result.endCall, turn.conversation.id]);
  restartQuietPeriod(deps, turn.conversation, turn.inactivityTimeoutMinutes);
}

/**
 * Runs the assistant's turn for an accepted message and stores its reply; on failure, undoes the message.
 * `onEvent` streams the turn to the caller as it happens; the signal stops it (the client went away).
 *
 * The rule for a stopped turn: the stored reply holds only what the client was sent. A streamed turn keeps the
 * part of the model's answer that went out through `onEvent`, with the calls that finished, and stays charged.
 * When nothing of the answer went out (a JSON request, whose reply is sent only at the end, or a stop before
 * the answer's first word), the turn is undone like a failed reply: the message goes, its charge is refunded.
 * Either way the error the turn stopped with is thrown on; callers tell a stopped turn by their signal.
 */
export async function replyTo(
  deps: ConversationDeps,
  turn: PendingTurn,
  signal: AbortSignal,
  onEvent?: (event: TurnEvent) => void,
): Promise<{ reply: string; functionCalls: FunctionCallRecord[] }> {
  let agentTurn: AgentTurn | undefined;
  try {
    const ports = assistantPorts(deps, turn.profile);
    const input = await buildTurnInput(ports, turn.profile, {
      variables: turn.conversation.variables,
      history: turn.history,
      message: turn.message,
    }, signal);
    agentTurn = new AgentTurn({
      model: turn.model,
      modelName: turn.profile.modelName ?? deps.defaultModel,
      temperature: turn.profile.temperature,
      ...input,
      signal,
      now: ports.now,
    });
    for await (const event of agentTurn) onEvent?.(event);
    const result = agentTurn.result;
    await storeReply(deps, turn, result);
    return { reply: result.delivered, functionCalls: result.functionCalls };
  } catch (error) {
    const sent = signal.aborted && onEvent && agentTurn ? agentTurn.result : undefined;
    if (sent?.delivered.trim()) await storeReply(deps, turn, sent);
    else await abandon(deps, turn);
    if (error instanceof LanguageModelError) {
      throw new ProviderFailedError(`Failed to process message: ${error.message}`, { cause: error });
    }
    throw error;
  }
}
