import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { MessageBody } from '../../api/schemas.ts';
import { EmptyDataMessage } from './responses.ts';
import { AssistantIdBody, WebhookBody } from './schemas.ts';
import { setWebhook, type AssistantDeps, type AssistantWebhook } from './service.ts';

const TAG = 'Assistants';
const notFound = { description: 'No such assistant of the caller', schema: MessageBody };

/** Each webhook's paths and answers, as anchor-api.md §5.6 words them. */
const webhooks: { webhook: AssistantWebhook; slug: string; what: string; enabled: string; disabled: string }[] = [
  {
    webhook: 'post-call', slug: 'webhook', what: 'post-call webhook (sent after each call; its URL is cleared when turned off)',
    enabled: 'Webhook enabled successfully', disabled: 'Webhook disabled successfully',
  },
  {
    webhook: 'inbound', slug: 'inbound-webhook', what: 'inbound-call webhook (asked before an inbound call is answered)',
    enabled: 'Webhook enabled successfully', disabled: 'Inbound webhook disabled successfully',
  },
  {
    webhook: 'conversation-ended', slug: 'conversation-ended-webhook', what: 'conversation-ended webhook (sent when a widget conversation goes quiet)',
    enabled: 'Conversation ended webhook enabled successfully', disabled: 'Conversation ended webhook disabled successfully',
  },
];

/** `POST /user/assistants/enable-…` and `disable-…` for each of an assistant's webhooks. */
export function assistantWebhookRoutes(deps: AssistantDeps): RouteDefinition[] {
  return webhooks.flatMap(({ webhook, slug, what, enabled, disabled }) => [
    defineRoute({
      method: 'POST',
      path: `/user/assistants/enable-${slug}`,
      tag: TAG,
      summary: `Turn on the ${what}`,
      auth: 'bearer',
      body: WebhookBody,
      responses: { 200: { description: 'Enabled', schema: EmptyDataMessage(enabled) }, 404: notFound },
      async handle({ auth, body }) {
        await setWebhook(deps, auth.user.id, body.assistant_id, body.webhook_url, webhook);
        return { body: { message: enabled, data: [] } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: `/user/assistants/disable-${slug}`,
      tag: TAG,
      summary: `Turn off the ${what}`,
      auth: 'bearer',
      body: AssistantIdBody,
      responses: { 200: { description: 'Disabled', schema: EmptyDataMessage(disabled) }, 404: notFound },
      async handle({ auth, body }) {
        await setWebhook(deps, auth.user.id, body.assistant_id, null, webhook);
        return { body: { message: disabled, data: [] } };
      },
    }),
  ]);
}
