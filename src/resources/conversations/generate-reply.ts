import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { FunctionCallRecord } from '../../agent/turn.ts';
import { balanceMicros } from '../../billing/ledger.ts';
import { InsufficientBalanceError, NotFoundError, PaymentRequiredError } from '../../lib/errors.ts';
import { rememberVariables } from './early-reply.ts';
import { acceptMessage, replyTo, type ConversationDeps } from './service.ts';

export interface ReplyRequest {
  userId: number;
  assistantId: number;
  customerIdentifier: string;
  message: string;
  /** Merged into the conversation's variables, a value given here replacing the stored one. */
  variables: Record<string, unknown> | undefined;
}

export interface GeneratedReply {
  conversationUuid: string;
  /** Empty while the conversation's AI is disabled (a person answers): the message is stored, not replied to. */
  reply: string;
  functionCalls: FunctionCallRecord[];
  aiDisabled: boolean;
}

/** This route's balance refusal: 402 with its code, where the chat routes answer 400. */
function insufficientBalance(): PaymentRequiredError {
  return new PaymentRequiredError(new InsufficientBalanceError().message, { errorCode: 'INSUFFICIENT_BALANCE' });
}

/**
 * The `api` conversation of (assistant, customer identifier), made on the first message: one statement, so two
 * first messages at once meet in the same conversation. Variables given are merged into the stored ones.
 */
async function openCustomerConversation(knex: Knex, request: ReplyRequest): Promise<string> {
  const { rows } = await knex.raw<{ rows: { uuid: string; variables: Record<string, unknown> }[] }>(`
    insert into conversations (uuid, user_id, assistant_id, type, variables, external_identifier)
    values (?, ?, ?, 'api', ?::jsonb, ?)
    on conflict (assistant_id, external_identifier) do update set variables = conversations.variables || excluded.variables
    returning uuid, variables`,
  [randomUUID(), request.userId, request.assistantId, JSON.stringify(request.variables ?? {}), request.customerIdentifier]);
  const { uuid, variables } = rows[0]!;
  rememberVariables(knex, uuid, variables);
  return uuid;
}

/**
 * AI replies for other channels (anchor §12.6): the customer's message goes into the conversation of
 * (assistant, customer identifier), charged as a widget message, and the assistant answers it with the whole
 * conversation as context, its functions called as in a chat. While a person has taken the conversation over,
 * the message is stored and no reply is made.
 */
export async function generateReply(deps: ConversationDeps, request: ReplyRequest, signal: AbortSignal): Promise<GeneratedReply> {
  const assistant = await deps.knex('assistants').where({ id: request.assistantId, userId: request.userId }).first<{ id: number } | undefined>('id');
  if (!assistant) throw new NotFoundError('Assistant not found or does not belong to you', { errorCode: 'ASSISTANT_NOT_FOUND' });
  if (await balanceMicros(deps.knex, request.userId) <= 0) throw insufficientBalance();
  const conversationUuid = await openCustomerConversation(deps.knex, request);
  const turn = await acceptMessage(deps, conversationUuid, request.message, { signal }).catch((error: unknown) => {
    // The balance ran out between the check and the charge.
    throw error instanceof InsufficientBalanceError ? insufficientBalance() : error;
  });
  if (!turn.conversation.aiEnabled) return { conversationUuid, reply: '', functionCalls: [], aiDisabled: true };
  const { reply, functionCalls } = await replyTo(deps, turn, signal);
  return { conversationUuid, reply, functionCalls, aiDisabled: false };
}
