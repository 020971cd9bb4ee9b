import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { CodedErrorBody } from '../../api/schemas.ts';
import { FreeformSendBody, FreeformSent, SenderList, SenderParams, SendersQuery, SessionAnswer, SessionQuery, TemplateList, TemplateSendBody, TemplateSent, TemplatesQuery } from './schemas.ts';
import { senderItem, templateItem } from './serialize.ts';
import { listSenders, listTemplates } from './senders.ts';
import { sendFreeform, sendTemplate, sessionOf, type WhatsAppSendDeps } from './send.ts';

const TAG = 'WhatsApp';
const coded = (description: string) => ({ description, schema: CodedErrorBody });

/** The sent message as both send routes answer it. */
function sentBody(result: Awaited<ReturnType<typeof sendTemplate>>) {
  return {
    success: true as const,
    conversation_id: result.conversation.uuid,
    message_id: result.sent.historyId ?? 0,
    whatsapp_message_id: String(result.sent.whatsappMessageId),
    message_sid: result.sent.providerMessageId,
    status: 'queued' as const,
  };
}

/** WhatsApp (anchor §12.7): senders and their templates, template and free-form sends, the 24-hour session. */
export function whatsappRoutes(deps: WhatsAppSendDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/user/whatsapp/senders',
      tag: TAG,
      summary: 'Your WhatsApp senders',
      auth: 'bearer',
      errorStyle: 'success',
      query: SendersQuery,
      responses: { 200: { description: 'The senders, oldest first', schema: SenderList } },
      async handle({ auth, query }) {
        const senders = await listSenders(deps.knex, auth.user.id, query.status === 'all' ? 'all' : 'online');
        return { body: { data: senders.map(senderItem) } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/user/whatsapp/senders/{senderId}/templates',
      tag: TAG,
      summary: 'A sender\'s message templates',
      auth: 'bearer',
      errorStyle: 'success',
      params: SenderParams,
      query: TemplatesQuery,
      responses: { 200: { description: 'The templates, oldest first', schema: TemplateList }, 404: coded('SENDER_NOT_FOUND') },
      async handle({ auth, params, query }) {
        const templates = await listTemplates(deps.knex, auth.user.id, params.senderId, query.status === 'all' ? 'all' : 'approved');
        return { body: { data: templates.map(templateItem) } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/user/whatsapp/send',
      tag: TAG,
      summary: 'Sends an approved template to a customer, inside the 24-hour window or not',
      description: 'Charged 0.05 USD from the balance before it is sent (refunded when the carrier refuses it or reports it failed). '
        + 'Every placeholder of the template needs a value in `variables` (422 with field errors otherwise).',
      auth: 'bearer',
      errorStyle: 'success',
      body: TemplateSendBody,
      responses: {
        200: { description: 'Handed to the carrier', schema: TemplateSent },
        402: coded('INSUFFICIENT_BALANCE'),
        404: coded('SENDER_NOT_FOUND or TEMPLATE_NOT_FOUND'),
        422: coded('TEMPLATE_NOT_APPROVED, INVALID_PHONE, SENDER_OFFLINE or SEND_FAILED (the carrier refused it); or Laravel field errors'),
        503: coded('PROVIDER_UNAVAILABLE: the carrier could not be reached, or does not do WhatsApp'),
      },
      async handle({ auth, body }) {
        const result = await sendTemplate(deps, auth.user.id, {
          senderId: body.sender_id, templateId: body.template_id, recipientPhone: body.recipient_phone, recipientName: body.recipient_name, variables: body.variables,
        });
        return { body: sentBody(result) };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/user/whatsapp/send-freeform',
      tag: TAG,
      summary: 'Sends a free-form message inside the 24-hour window the customer\'s last message opened',
      description: 'Charged 0.005 USD from the balance (refunded when the carrier refuses it or reports it failed).',
      auth: 'bearer',
      errorStyle: 'success',
      body: FreeformSendBody,
      responses: {
        200: { description: 'Handed to the carrier, with the session it was sent in', schema: FreeformSent },
        402: coded('INSUFFICIENT_BALANCE'),
        403: coded('SESSION_EXPIRED: the customer has not written in the last 24 hours; send a template'),
        404: coded('SENDER_NOT_FOUND'),
        422: coded('INVALID_PHONE, or SEND_FAILED (the carrier refused it); or Laravel field errors'),
        503: coded('SENDER_OFFLINE, or PROVIDER_UNAVAILABLE'),
      },
      async handle({ auth, body }) {
        const result = await sendFreeform(deps, auth.user.id, { senderId: body.sender_id, recipientPhone: body.recipient_phone, message: body.message });
        return { body: { ...sentBody(result), session_status: result.session } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/user/whatsapp/session-status',
      tag: TAG,
      summary: 'Whether a customer\'s 24-hour session is open, and until when',
      auth: 'bearer',
      errorStyle: 'success',
      query: SessionQuery,
      responses: { 200: { description: 'The session', schema: SessionAnswer }, 404: coded('SENDER_NOT_FOUND'), 422: coded('INVALID_PHONE') },
      async handle({ auth, query }) {
        const { conversation, session } = await sessionOf(deps, auth.user.id, query.sender_id, query.recipient_phone);
        return {
          body: {
            success: true as const,
            has_conversation: conversation !== undefined,
            ...(conversation ? {
              conversation_id: conversation.uuid,
              customer_name: conversation.customerName,
              last_customer_message_at: conversation.lastCustomerMessageAt?.toISOString() ?? null,
            } : {}),
            session_status: session,
          },
        };
      },
    }),
  ];
}
