import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { loadAgentProfile, type AgentProfile } from '../../agent/profile.ts';
import { openingLine, prepareTurn, type AgentDeps } from '../../agent/session.ts';
import { runAgentTurn, type AgentEvent, type FunctionCallRecord } from '../../agent/turn.ts';
import { AppError, InsufficientBalanceError, NotFoundError, ServiceUnavailableError } from '../../lib/errors.ts';
import type { SecretBox } from '../../lib/secrets.ts';
import type { Logger } from '../../logger.ts';
import type { LanguageModel } from '../../providers/llm/types.ts';
import { balanceMicros, chargeWithinBalance, recordEntry } from '../balance/ledger.ts';
import { Conversation, ConversationMessage, type ConversationType } from './model.ts';

export interface ConversationDeps extends AgentDeps {
  secrets: SecretBox;
  model: LanguageModel | undefined;
  /** The model to use when an assistant's model is not in the catalog. */
  defaultModel: string;
  logger: Logger;
}

/** What one user message in a widget conversation costs: 0.01 USD. */
export const WIDGET_MESSAGE_MICROS = 10_000;

const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const NO_MODEL_MESSAGE = 'No language model is configured. Set LLM_BASE_URL and LLM_API_KEY.';

async function findConversation(knex: Knex, uuid: string): Promise<Conversation> {
  const conversation = uuidShape.test(uuid) ? await Conversation.query(knex).findOne({ uuid }) : undefined;
  if (!conversation) throw new NotFoundError('Conversation not found');
  return conversation;
}

export async function startConversation(
  deps: ConversationDeps,
  input: { assistantUuid: string; type: ConversationType; variables: Record<string, unknown> },
): Promise<{ conversation: Conversation; history: ConversationMessage[] }> {
  const profile = uuidShape.test(input.assistantUuid) ? await loadAgentProfile(deps, { uuid: input.assistantUuid }) : undefined;
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

export async function conversationHistory(knex: Knex, uuid: string): Promise<{ conversation: Conversation; history: ConversationMessage[] }> {
  const conversation = await findConversation(knex, uuid);
  const history = await ConversationMessage.query(knex).where({ conversationId: conversation.id }).orderBy('id');
  return { conversation, history };
}

/** A user message accepted and paid for, waiting for the assistant's reply. */
export interface PendingTurn {
  conversation: Conversation;
  profile: AgentProfile;
  model: LanguageModel;
  userMessage: ConversationMessage;
  chargeKey: string | undefined;
  history: ConversationMessage[];
}

/**
 * Checks everything that can refuse a message before anything is spent, then stores the user message and,
 * for a widget conversation, charges it, in one transaction that refuses to overdraw.
 */
export async function acceptMessage(deps: ConversationDeps, uuid: string, message: string): Promise<PendingTurn> {
  const conversation = await findConversation(deps.knex, uuid);
  if (!deps.model) throw new ServiceUnavailableError(NO_MODEL_MESSAGE);
  const model = deps.model;
  const [profile, history] = await Promise.all([
    loadAgentProfile(deps, { id: conversation.assistantId }),
    ConversationMessage.query(deps.knex).where({ conversationId: conversation.id }).orderBy('id'),
  ]);
  if (!profile) throw new NotFoundError('Assistant not found');
  return deps.knex.transaction(async (trx) => {
    const userMessage = await ConversationMessage.query(trx)
      .insert({ conversationId: conversation.id, role: 'user', content: message, functionCalls: null })
      .returning('*');
    let chargeKey: string | undefined;
    if (conversation.type === 'widget') {
      chargeKey = `conversation-message:${userMessage.id}`;
      await chargeWithinBalance(trx, {
        userId: conversation.userId,
        amountMicros: WIDGET_MESSAGE_MICROS,
        kind: 'conversation_message',
        reference: `conversation:${conversation.uuid}`,
        description: 'Widget chat message',
        idempotencyKey: chargeKey,
      });
    }
    // Increments in SQL: messages of one conversation may arrive at the same time.
    await trx('conversations').where({ id: conversation.id }).update({
      messageCount: trx.raw('message_count + 1'),
      totalCostMicros: trx.raw('total_cost_micros + ?', [chargeKey ? WIDGET_MESSAGE_MICROS : 0]),
      updatedAt: new Date(),
    });
    return { conversation, profile, model, userMessage, chargeKey, history };
  });
}

/** Undoes an accepted message whose reply failed: the message goes, and the charge is refunded. */
async function abandon(deps: ConversationDeps, turn: PendingTurn): Promise<void> {
  await deps.knex.transaction(async (trx) => {
    await ConversationMessage.query(trx).deleteById(turn.userMessage.id);
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

/** Runs the assistant's turn for an accepted message and stores its reply; on failure, undoes the message. */
export async function replyTo(
  deps: ConversationDeps,
  turn: PendingTurn,
  onEvent?: (event: AgentEvent) => void,
): Promise<{ reply: string; functionCalls: FunctionCallRecord[] }> {
  try {
    const { messages, tools } = await prepareTurn(deps, turn.profile, {
      variables: turn.conversation.variables,
      history: turn.history.map((entry) => ({ role: entry.role, content: entry.content })),
      message: turn.userMessage.content,
    });
    const result = await runAgentTurn({
      model: turn.model,
      modelName: turn.profile.modelName ?? deps.defaultModel,
      temperature: turn.profile.temperature,
      messages,
      tools,
      ...(onEvent ? { onEvent } : {}),
    });
    await deps.knex.transaction(async (trx) => {
      await ConversationMessage.query(trx).insert({
        conversationId: turn.conversation.id,
        role: 'assistant',
        content: result.reply,
        functionCalls: result.functionCalls.length ? result.functionCalls : null,
      });
      await trx('conversations').where({ id: turn.conversation.id }).update({
        messageCount: trx.raw('message_count + 1'),
        updatedAt: new Date(),
        ...(result.ended ? { endedAt: new Date() } : {}),
      });
    });
    return { reply: result.reply, functionCalls: result.functionCalls };
  } catch (error) {
    await abandon(deps, turn);
    if (error instanceof Error && error.name === 'LanguageModelError') {
      throw new AppError(400, `Failed to process message: ${error.message}`);
    }
    throw error;
  }
}
