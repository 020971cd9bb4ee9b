import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { CodedErrorBody } from '../../api/schemas.ts';
import type { SecretBox } from '../../lib/secrets.ts';
import { sendTestReceipt, type ReceiptDeps } from './receipts.ts';
import { Deleted, SenderAnswer, SenderBody, SenderParams, SenderPatch, TemplateAnswer, TemplateBody, TemplateParams } from './schemas.ts';
import { senderSettings, templateItem } from './serialize.ts';
import { createSender, createTemplate, deleteSender, deleteTemplate, updateSender } from './senders.ts';
import { Type } from '@sinclair/typebox';

const TAG = 'WhatsApp settings';
const coded = (description: string) => ({ description, schema: CodedErrorBody });

/**
 * Parley's own extension (the contract has senders and templates configured in a dashboard, anchor §12.7, §13.3):
 * make one of your numbers a sender answered by one of your assistants, change or delete it, add and delete its
 * templates, and send its read-receipt webhook a test event.
 */
export function whatsappSettingsRoutes(deps: ReceiptDeps & { secrets: SecretBox }): RouteDefinition[] {
  const { knex } = deps;
  return [
    defineRoute({
      method: 'POST',
      path: '/user/whatsapp/senders',
      tag: TAG,
      summary: 'Makes one of your numbers a WhatsApp sender (Parley\'s extension)',
      description: 'The answer carries the sender\'s `signing_secret` this once: it signs the read receipts (`X-Signature-256`).',
      auth: 'bearer',
      errorStyle: 'success',
      body: SenderBody,
      responses: { 201: { description: 'The sender', schema: SenderAnswer } },
      async handle({ auth, body }) {
        const { sender, secret } = await createSender(knex, deps.secrets, auth.user.id, {
          phoneNumberId: body.phone_number_id, assistantId: body.assistant_id, displayName: body.display_name, status: body.status,
          qualityRating: body.quality_rating, messagingLimit: body.messaging_limit, webhookUrl: body.webhook_url,
        });
        return { status: 201, body: { success: true as const, data: senderSettings(sender, secret) } };
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/user/whatsapp/senders/{senderId}',
      tag: TAG,
      summary: 'Changes a sender: its assistant, name, status, rating, limit or webhook URL (Parley\'s extension)',
      auth: 'bearer',
      errorStyle: 'success',
      params: SenderParams,
      body: SenderPatch,
      responses: { 200: { description: 'The sender', schema: SenderAnswer }, 404: coded('SENDER_NOT_FOUND') },
      async handle({ auth, params, body }) {
        const sender = await updateSender(knex, auth.user.id, params.senderId, {
          assistantId: body.assistant_id, displayName: body.display_name, status: body.status, qualityRating: body.quality_rating,
          messagingLimit: body.messaging_limit, webhookUrl: body.webhook_url,
        });
        return { body: { success: true as const, data: senderSettings(sender) } };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/user/whatsapp/senders/{senderId}',
      tag: TAG,
      summary: 'Deletes a sender, its templates and its conversations (Parley\'s extension)',
      auth: 'bearer',
      errorStyle: 'success',
      params: SenderParams,
      responses: { 200: { description: 'Deleted', schema: Deleted }, 404: coded('SENDER_NOT_FOUND') },
      async handle({ auth, params }) {
        await deleteSender(knex, auth.user.id, params.senderId);
        return { body: { success: true as const, message: 'Sender deleted successfully' } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/user/whatsapp/senders/{senderId}/templates',
      tag: TAG,
      summary: 'Adds a message template to a sender, as Meta approved (or not) it (Parley\'s extension)',
      auth: 'bearer',
      errorStyle: 'success',
      params: SenderParams,
      body: TemplateBody,
      responses: { 201: { description: 'The template', schema: TemplateAnswer }, 404: coded('SENDER_NOT_FOUND') },
      async handle({ auth, params, body }) {
        const template = await createTemplate(knex, auth.user.id, params.senderId, {
          name: body.name, language: body.language, category: body.category, status: body.status, bodyText: body.body_text, contentSid: body.content_sid,
        });
        return { status: 201, body: { success: true as const, data: templateItem(template) } };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/user/whatsapp/senders/{senderId}/templates/{templateId}',
      tag: TAG,
      summary: 'Deletes a template (Parley\'s extension)',
      auth: 'bearer',
      errorStyle: 'success',
      params: TemplateParams,
      responses: { 200: { description: 'Deleted', schema: Deleted }, 404: coded('SENDER_NOT_FOUND or TEMPLATE_NOT_FOUND') },
      async handle({ auth, params }) {
        await deleteTemplate(knex, auth.user.id, params.senderId, params.templateId);
        return { body: { success: true as const, message: 'Template deleted successfully' } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/user/whatsapp/senders/{senderId}/test-webhook',
      tag: TAG,
      summary: 'Sends the sender\'s read-receipt webhook a test event (`test: true`) (Parley\'s extension)',
      auth: 'bearer',
      errorStyle: 'success',
      params: SenderParams,
      responses: {
        202: { description: 'Queued for delivery; the webhook log shows how it went', schema: Type.Object({ success: Type.Literal(true), delivery_id: Type.Integer() }) },
        404: coded('SENDER_NOT_FOUND'),
        422: coded('WEBHOOK_NOT_CONFIGURED: the sender has no webhook URL'),
      },
      async handle({ auth, params }) {
        const queued = await sendTestReceipt(deps, auth.user.id, params.senderId);
        return { status: 202, body: { success: true as const, delivery_id: queued.deliveryId } };
      },
    }),
  ];
}
