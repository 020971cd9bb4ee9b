import { PassThrough } from 'node:stream';
import { defineRoute, type RouteDefinition, type RouteResult } from '../../api/routing.ts';
import { StatusErrorBody } from '../../api/schemas.ts';
import type { TurnEvent } from '../../agent/turn.ts';
import { bearerCredential } from '../../api/middleware/auth.ts';
import { DomainError } from '../../lib/errors.ts';
import type { ConversationType } from './model.ts';
import { listConversations } from './list.ts';
import {
  ConversationHistory, ConversationList, ConversationListQuery, ConversationParams, MessageReply, SendMessageBody, StartConversationBody,
  StartedConversation,
} from './schemas.ts';
import { generateReplyRoutes } from './generate-reply-routes.ts';
import { historyItem } from './serialize.ts';
import { acceptMessage, conversationHistory, replyTo, startConversation, type ConversationDeps, type PendingTurn } from './service.ts';
import { takeoverRoutes } from './takeover-routes.ts';
import { admitTestMessage, type TestChatGate } from './test-limits.ts';

/** The answer to a message while a person has taken the conversation over: stored, with no reply of the assistant. */
const heldForAPerson = { status: true, message: '', function_calls: [], ai_enabled: false } as const;

function sseEvent(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The turn's reply as one JSON body. */
async function jsonReply(deps: ConversationDeps, turn: PendingTurn, signal: AbortSignal): Promise<RouteResult> {
  try {
    const { reply, functionCalls } = await replyTo(deps, turn, signal);
    return { body: { status: true, message: reply, function_calls: functionCalls } };
  } catch (error) {
    // Nobody is left to read an answer: 499 (nginx's "client closed request") keeps it out of the error log.
    if (signal.aborted) return { status: 499, body: '' };
    throw error;
  }
}

/** The turn as server-sent events: `token`, `tool_call`, then `done` or `error`; nothing more once the client has gone. */
function streamReply(deps: ConversationDeps, turn: PendingTurn, signal: AbortSignal, requestId: string): PassThrough {
  const stream = new PassThrough();
  const forward = (event: TurnEvent) => {
    if (event.type === 'token') stream.write(sseEvent('token', { text: event.text }));
    else if (event.type === 'tool_finished') stream.write(sseEvent('tool_call', event.call));
  };
  void replyTo(deps, turn, signal, forward).then(
    ({ reply, functionCalls }) => stream.end(sseEvent('done', { status: true, message: reply, function_calls: functionCalls })),
    (error: unknown) => {
      if (signal.aborted) {
        stream.end();
        return;
      }
      const known = error instanceof DomainError;
      if (!known) deps.logger.error({ err: error, requestId }, 'conversation turn failed');
      stream.end(sseEvent('error', { status: false, error: known ? error.message : 'Server Error' }));
    },
  );
  return stream;
}

export function conversationRoutes(deps: ConversationDeps & { publicUrl: string; testChats: TestChatGate }): RouteDefinition[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/conversations',
      tag: 'Conversations',
      summary: 'Start a text conversation with an assistant (public: the assistant is named by its UUID)',
      auth: 'public',
      errorStyle: 'status',
      body: StartConversationBody,
      responses: {
        200: { description: 'Started, with the initial message when the assistant has one', schema: StartedConversation },
        400: { description: "The owner's balance is not positive (widget conversations)", schema: StatusErrorBody },
        404: { description: 'Assistant not found', schema: StatusErrorBody },
      },
      async handle({ body }) {
        const { conversation, history } = await startConversation(deps, {
          assistantUuid: body.assistant_id,
          type: (body.type ?? 'widget') as ConversationType,
          variables: body.variables ?? {},
        });
        return { body: { status: true, conversation_id: conversation.uuid, history: history.map(historyItem) } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/conversations/{uuid}',
      tag: 'Conversations',
      summary: 'The history of a conversation, oldest message first',
      auth: 'public',
      errorStyle: 'status',
      params: ConversationParams,
      responses: {
        200: { description: 'The history', schema: ConversationHistory },
        404: { description: 'Conversation not found', schema: StatusErrorBody },
      },
      async handle({ params }) {
        const { conversation, history, sender } = await conversationHistory(deps.knex, params.uuid);
        return {
          body: {
            status: true,
            history: history.map(historyItem),
            variables: conversation.variables,
            ...(conversation.type === 'api' ? { external_identifier: conversation.externalIdentifier } : {}),
            ...(conversation.type === 'whatsapp' ? {
              whatsapp_sender: sender ? { name: sender.displayName, phone: sender.phoneNumber } : null,
              customer: { name: conversation.customerName, phone: conversation.customerPhone },
            } : {}),
            ai_enabled: conversation.aiEnabled,
          },
        };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/conversations/{uuid}/messages',
      tag: 'Conversations',
      summary: 'Send a message and get the assistant\'s reply',
      description:
        'Widget conversations are charged 0.01 USD per user message; test conversations are free, within ' +
        'TEST_CHAT_PER_ASSISTANT_PER_HOUR messages per assistant and TEST_CHAT_PER_ADDRESS_PER_MINUTE per client ' +
        "address (429 with Retry-After past them), which the owner's `Authorization: Bearer` credential lifts. With " +
        '`Accept: text/event-stream` the reply streams as server-sent events: `token` `{text}`, `tool_call` ' +
        '`{name, arguments, result}`, then `done` (the JSON reply) or `error` `{status:false, error}`. While the ' +
        "conversation's AI is disabled (human takeover) the message is stored and answered with an empty `message` " +
        'and `ai_enabled: false`: a person replies later, in the history.',
      auth: 'public',
      errorStyle: 'status',
      params: ConversationParams,
      body: SendMessageBody,
      responses: {
        200: { description: 'The reply (or an event stream)', schema: MessageReply },
        400: { description: 'Insufficient balance, or the model failed ("Failed to process message: …")', schema: StatusErrorBody },
        404: { description: 'Conversation not found', schema: StatusErrorBody },
        422: { description: 'The message is missing or too long', schema: StatusErrorBody },
        429: { description: 'Test conversations: the free test messages are used up for now', schema: StatusErrorBody },
        503: { description: 'No language model is configured', schema: StatusErrorBody },
      },
      async handle({ params, body, ctx, signal }) {
        const sender = { clientIp: ctx.ip, bearer: bearerCredential(ctx) };
        const turn = await acceptMessage(deps, params.uuid, body.message, { admitTest: (assistant) => admitTestMessage(deps.testChats, assistant, sender), signal });
        const streamed = ctx.get('accept').includes('text/event-stream');
        if (!turn.conversation.aiEnabled) {
          return streamed ? { body: sseEvent('done', heldForAPerson), type: 'text/event-stream' } : { body: heldForAPerson };
        }
        if (!streamed) return jsonReply(deps, turn, signal);
        const stream = streamReply(deps, turn, signal, ctx.state.requestId as string);
        return { body: stream, type: 'text/event-stream', headers: { 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/user/conversations',
      tag: 'Conversations',
      summary: "The caller's conversations, newest first, with cursor pagination",
      auth: 'bearer',
      query: ConversationListQuery,
      responses: { 200: { description: 'A page of conversations', schema: ConversationList } },
      async handle({ auth, query }) {
        return {
          body: await listConversations(deps.knex, {
            userId: auth.user.id,
            type: query.type,
            assistantId: query.assistant_id,
            externalIdentifier: query.external_identifier,
            customerPhone: query.customer_phone,
            whatsappSenderPhone: query.whatsapp_sender_phone,
            perPage: query.per_page ?? 15,
            cursor: query.cursor,
            path: `${deps.publicUrl}/api/user/conversations`,
            query,
          }),
        };
      },
    }),
    ...takeoverRoutes(deps),
    ...generateReplyRoutes(deps),
  ];
}
