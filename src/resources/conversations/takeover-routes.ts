import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { StatusErrorBody } from '../../api/schemas.ts';
import { sqlTimestamp } from '../../lib/time.ts';
import { AiSwitched, ConversationParams, OperatorMessage, OperatorMessageBody } from './schemas.ts';
import { startClaimedTimer } from './quiet-timer.ts';
import { quietConversation, type ConversationDeps } from './service.ts';
import { setAiEnabled, storeOperatorMessage } from './takeover.ts';

/** Disable-ai and enable-ai (anchor §12.5): the same route but for the switch's position. */
function aiSwitchRoute(deps: Pick<ConversationDeps, 'knex'>, enabled: boolean): RouteDefinition {
  return defineRoute({
    method: 'POST',
    path: `/automate/conversations/{uuid}/${enabled ? 'enable-ai' : 'disable-ai'}`,
    tag: 'Conversations',
    summary: enabled
      ? 'Turn the assistant\'s replies in a conversation back on (the end of a human takeover)'
      : 'Turn the assistant\'s replies in a conversation off, so a person can answer (human takeover)',
    description: enabled
      ? 'The next user message is answered by the assistant again, with the whole conversation (the operator\'s messages too) as context.'
      : 'User messages are still stored (and charged, as any user message), but no reply is generated: the message ' +
        'endpoint answers an empty `message` with `ai_enabled: false`, generate-reply `ai_disabled: true`. An operator ' +
        'answers with POST /user/conversations/{uuid}/messages. The "Automate API key" is any API key or session ' +
        'token of the conversation\'s owner.',
    auth: 'bearer',
    errorStyle: 'automate',
    params: ConversationParams,
    responses: {
      200: { description: `AI replies are ${enabled ? 'on' : 'off'}`, schema: AiSwitched },
      404: { description: 'Conversation not found (or not the caller\'s)', schema: StatusErrorBody },
    },
    async handle({ auth, params }) {
      await setAiEnabled(deps.knex, { userId: auth.user.id, uuid: params.uuid, enabled });
      return { body: { status: true, ai_enabled: enabled } };
    },
  });
}

export function takeoverRoutes(deps: Pick<ConversationDeps, 'knex' | 'startQuietTimer' | 'logger'>): RouteDefinition[] {
  return [
    aiSwitchRoute(deps, false),
    aiSwitchRoute(deps, true),
    defineRoute({
      method: 'POST',
      path: '/user/conversations/{uuid}/messages',
      tag: 'Conversations',
      summary: "An operator's answer in one of the caller's conversations (a Parley extension for human takeover)",
      description:
        'Stored as an `assistant` message marked `human: true` (so in the conversation\'s history too), free of ' +
        'charge, and no model runs. It can be sent whether or not the AI is disabled; the widget shows it. Like a user ' +
        'message, it starts a widget conversation\'s inactivity period again (reopening an ended conversation). Delivering ' +
        'it on another channel (`api` conversations) is up to the integration.',
      auth: 'bearer',
      errorStyle: 'status',
      params: ConversationParams,
      body: OperatorMessageBody,
      responses: {
        201: { description: 'The stored message', schema: OperatorMessage },
        404: { description: 'Conversation not found (or not the caller\'s)', schema: StatusErrorBody },
        422: { description: 'The message is missing or too long', schema: StatusErrorBody },
      },
      async handle({ auth, params, body }) {
        const { message, conversation, inactivityTimeoutMinutes, startsTimer } = await storeOperatorMessage(deps.knex, { userId: auth.user.id, uuid: params.uuid, content: body.message });
        if (startsTimer) startClaimedTimer(deps, quietConversation(conversation, inactivityTimeoutMinutes));
        return {
          status: 201,
          body: { status: true, message: { role: 'assistant', content: message.content, human: true, created_at: sqlTimestamp(message.createdAt) } },
        };
      },
    }),
  ];
}
