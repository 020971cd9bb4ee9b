import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { CodedErrorBody } from '../../api/schemas.ts';
import { generateReply } from './generate-reply.ts';
import { GeneratedReply, GenerateReplyBody } from './schemas.ts';
import type { ConversationDeps } from './service.ts';

/** The documented limit of generate-reply: 5 requests a minute per token, counted across both spellings. */
const REPLIES_PER_MINUTE = 5;

/** One spelling of AI generate-reply (anchor §12.6): Autocalls serves it at `/ai/...`, Famulor at `/user/ai/...`. */
function generateReplyRoute(deps: ConversationDeps, path: string): RouteDefinition {
  return defineRoute({
    method: 'POST',
    path,
    tag: 'AI replies',
    summary: 'A reply of an assistant to a customer on another channel (WhatsApp, SMS, a CRM, e-mail)',
    description:
      'The conversation is kept per (assistant, customer identifier) and made on the first message; `variables` are ' +
      'merged into its own. Each message is charged as a widget message (0.01 USD). While a person has taken the ' +
      'conversation over (POST /automate/conversations/{uuid}/disable-ai) the message is stored and `reply` is ' +
      'empty with `ai_disabled: true`. At most 5 requests a minute per token (both spellings of the path count ' +
      'together), then 429 `{"message": "Too Many Attempts.", "retry_after": …}`.',
    auth: 'bearer',
    errorStyle: 'success',
    rateLimit: { perMinute: REPLIES_PER_MINUTE, bucket: 'ai-generate-reply' },
    body: GenerateReplyBody,
    responses: {
      200: { description: 'The reply, with the functions the assistant called', schema: GeneratedReply },
      402: { description: 'INSUFFICIENT_BALANCE: the balance is not positive', schema: CodedErrorBody },
      404: { description: "ASSISTANT_NOT_FOUND: no such assistant of the caller's", schema: CodedErrorBody },
    },
    errors: ['provider_failed', 'provider_unavailable'],
    async handle({ auth, body, signal }) {
      const customerIdentifier = body.customer_identifier.trim();
      const result = await generateReply(deps, {
        userId: auth.user.id,
        assistantId: body.assistant_id,
        customerIdentifier,
        message: body.message,
        variables: body.variables,
      }, signal);
      return {
        body: {
          success: true,
          conversation_id: result.conversationUuid,
          customer_identifier: customerIdentifier,
          reply: result.reply,
          function_calls: result.functionCalls,
          ai_disabled: result.aiDisabled,
        },
      };
    },
  });
}

export function generateReplyRoutes(deps: ConversationDeps): RouteDefinition[] {
  return [generateReplyRoute(deps, '/user/ai/generate-reply'), generateReplyRoute(deps, '/ai/generate-reply')];
}
