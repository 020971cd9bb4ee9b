import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { AgentProfile } from '../../agent/profile.ts';
import type { EarlyModelRequest } from '../../agent/early-request.ts';
import { openingLine, type HistoryEntry } from '../../agent/turn-input.ts';
import { AgentTurn, type FunctionCallRecord, type TurnEvent, type TurnResult } from '../../agent/turn.ts';
import { InsufficientBalanceError, NotFoundError, ProviderFailedError, ServiceUnavailableError } from '../../lib/errors.ts';
import type { SafeFetch } from '../../lib/safe-fetch.ts';
import type { SecretBox } from '../../lib/secrets.ts';
import { isUuid } from '../../lib/uuid.ts';
import type { Logger } from '../../logger.ts';
import type { EmbeddingsProvider } from '../../providers/embeddings/types.ts';
import { LanguageModelError, type LanguageModel } from '../../providers/llm/types.ts';
import { recordEntry } from '../../billing/ledger.ts';
import { toAgentProfile, type StoredProfile } from '../assistants/profile.ts';
import { Conversation, ConversationMessage, type ConversationType } from './model.ts';
import { countEarly, forgetConversation, heldHistory, rememberConversation, replyOptions, sendEarly } from './early-reply.ts';
import { insertIfOpeningCurrent, knownAssistant, rememberAssistant } from './known-assistants.ts';
import { startClaimedTimer, type QuietConversation, type QuietTimerDeps } from './quiet-timer.ts';
import { insertConversation, startingProfile, storeReplyMessage, storeUserMessage, WIDGET_MESSAGE_MICROS, type TurnConversation } from './statements.ts';

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
  /**
   * Told, without being awaited, that the user's balance was charged and their auto-recharge is armed (it checks
   * its threshold).
   */
  afterCharge?: (userId: number) => Promise<void>;
  /** Starts a widget or WhatsApp conversation's inactivity timer when a message claimed it (quiet-timer.ts). */
  startQuietTimer?: QuietTimerDeps['startQuietTimer'];
}

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

/**
 * Starts a conversation: one statement when this process knows the assistant's opening and it has not changed
 * (known-assistants.ts), else two, the profile with the owner's balance, then the conversation with its opening
 * line. The process remembers the conversation, to send its first message's model request early (early-reply.ts).
 */
export async function startConversation(
  deps: ConversationDeps,
  input: { assistantUuid: string; type: ConversationType; variables: Record<string, unknown> },
): Promise<{ conversation: Pick<Conversation, 'id' | 'uuid'>; history: Pick<ConversationMessage, 'role' | 'content' | 'functionCalls' | 'human'>[] }> {
  if (!isUuid(input.assistantUuid)) throw new NotFoundError('Assistant not found');
  const started = (conversation: Pick<Conversation, 'id' | 'uuid'>, opening: string) => {
    const history = opening ? [{ role: 'assistant' as const, content: opening }] : [];
    rememberConversation(deps.knex, conversation.uuid, { assistantUuid: input.assistantUuid, type: input.type, variables: input.variables, history });
    return { conversation, history: history.map((entry) => ({ ...entry, functionCalls: null, human: false })) };
  };
  const openingOf = (profile: StoredProfile) => openingLine({ initialMessage: profile.initialMessage, variables: profile.variables ?? {} }, input.variables);
  const known = knownAssistant(deps.knex, input.assistantUuid);
  if (known) {
    const opening = openingOf(known);
    const conversation = await insertIfOpeningCurrent(deps.knex, { ...input, known, opening });
    if (conversation) return started(conversation, opening);
  }
  const found = await startingProfile(deps.knex, input.assistantUuid);
  if (!found) throw new NotFoundError('Assistant not found');
  rememberAssistant(deps.knex, found.profile);
  if (input.type === 'widget' && found.balanceMicros <= 0) throw new InsufficientBalanceError();
  const { id: assistantId, userId } = found.profile;
  const opening = openingOf(found.profile);
  return started(await insertConversation(deps.knex, { userId, assistantId, type: input.type, variables: input.variables, opening }), opening);
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
  /** The reply's model request, sent while the message was stored (early-reply.ts). */
  early: EarlyModelRequest | undefined;
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
  options: {
    admitTest?: (assistant: { assistantId: number; ownerId: number }) => Promise<void>;
    /** False when the caller will not reply now even if the AI is on (statements.ts: how the message commits). */
    replyFollows?: boolean;
    /**
     * The reply's signal, given by a caller that replies at once: the reply's model request is then sent while
     * the message is stored, when this process remembers the conversation (early-reply.ts).
     */
    signal?: AbortSignal;
  } = {},
): Promise<PendingTurn> {
  const { admitTest, replyFollows = true, signal } = options;
  if (!isUuid(uuid)) throw new NotFoundError('Conversation not found');
  if (!deps.model) {
    await findConversation(deps.knex, uuid);
    throw new ServiceUnavailableError(NO_MODEL_MESSAGE);
  }
  const chargeKey = `conversation-message:${randomUUID()}`;
  // The statement starts once the early request has gone out (early-reply.ts): the model's wait is the longer.
  const sent = signal && replyFollows ? await sendEarly(deps, uuid, message, signal).catch(() => undefined) : undefined;
  // A message refused, or one nobody replies to now, leaves its early request to nobody; a refused one is not
  // sent early again until a turn of its conversation goes through.
  const refused = () => {
    forgetConversation(deps.knex, uuid);
    dropEarly(sent?.request);
  };
  const accepted = await storeUserMessage(deps.knex, uuid, message, chargeKey, replyFollows).catch((error: unknown) => {
    refused();
    throw error;
  });
  if (!accepted || accepted.messageId === null) refused();
  if (!accepted) throw new NotFoundError('Conversation not found');
  rememberAssistant(deps.knex, accepted.profile);
  if (accepted.messageId === null) throw new InsufficientBalanceError();
  let early = sent && heldHistory(deps.knex, uuid, sent, accepted.history) ? sent.request : undefined;
  if (!accepted.aiEnabled) {
    // A person answers (human takeover): nothing is sent early while they do.
    forgetConversation(deps.knex, uuid);
    early = undefined;
  }
  if (!early) dropEarly(sent?.request);
  const { messageId, history, profile, inactivityTimeoutMinutes, startsTimer, rechargeArmed, asynchronous: _commit, ...conversation } = accepted;
  const turn = {
    conversation,
    profile: toAgentProfile(deps.secrets, profile),
    model: deps.model,
    userMessageId: messageId,
    message,
    chargeKey: isCharged(conversation.type) ? chargeKey : undefined,
    history,
    inactivityTimeoutMinutes,
    early,
  };
  if (turn.chargeKey && rechargeArmed) void deps.afterCharge?.(conversation.userId);
  if (startsTimer) startClaimedTimer(deps, quietConversation(turn.conversation, inactivityTimeoutMinutes));
  if (conversation.type === 'test' && admitTest) {
    try {
      await admitTest({ assistantId: turn.profile.assistantId, ownerId: conversation.userId });
    } catch (error) {
      await abandon(deps, turn);
      refused();
      throw error;
    }
  }
  return turn;
}

/** An early request no turn will take: stopped, and counted once. */
function dropEarly(early: EarlyModelRequest | undefined): void {
  if (early?.outcome !== 'held') return;
  early.abandon();
  countEarly(early);
}

/** What the inactivity timer of a conversation whose message claimed it is started with. */
export function quietConversation(conversation: Pick<Conversation, 'id' | 'uuid' | 'userId' | 'assistantId'>, inactivityTimeoutMinutes: number): QuietConversation {
  const { id, uuid, userId, assistantId } = conversation;
  return { id, uuid, userId, assistantId, inactivityTimeoutMinutes };
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
  const startsTimer = await storeReplyMessage(deps.knex, {
    conversationId: turn.conversation.id, content: result.delivered, functionCalls: result.functionCalls, endCall: result.endCall,
  });
  if (startsTimer) startClaimedTimer(deps, quietConversation(turn.conversation, turn.inactivityTimeoutMinutes));
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
  const dialogue = { variables: turn.conversation.variables, history: turn.history, message: turn.message };
  try {
    const options = await replyOptions(deps, turn.profile, dialogue, signal);
    agentTurn = new AgentTurn({ ...options, model: turn.early ? turn.early.serving(turn.model) : turn.model, signal });
    for await (const event of agentTurn) onEvent?.(event);
    const result = agentTurn.result;
    await storeReply(deps, turn, result);
    rememberConversation(deps.knex, turn.conversation.uuid, {
      assistantUuid: turn.profile.assistantUuid,
      type: turn.conversation.type,
      variables: turn.conversation.variables,
      history: [...turn.history, { role: 'user', content: turn.message }, { role: 'assistant', content: result.delivered }],
    });
    return { reply: result.delivered, functionCalls: result.functionCalls };
  } catch (error) {
    forgetConversation(deps.knex, turn.conversation.uuid);
    const sent = signal.aborted && onEvent && agentTurn ? agentTurn.result : undefined;
    if (sent?.delivered.trim()) await storeReply(deps, turn, sent);
    else await abandon(deps, turn);
    if (error instanceof LanguageModelError) {
      throw new ProviderFailedError(`Failed to process message: ${error.message}`, { cause: error });
    }
    throw error;
  } finally {
    // A turn that never asked the model (its input failed) leaves the early request untaken.
    turn.early?.abandon();
    countEarly(turn.early);
  }
}
