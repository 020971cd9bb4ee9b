import { Type } from '@sinclair/typebox';
import { twilioSignature } from '../../api/middleware/signatures.ts';
import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { IdInteger, MessageBody } from '../../api/schemas.ts';
import type { TelephonyProvider } from '../../providers/telephony/types.ts';
import { recordWhatsAppStatus, type ReceiptDeps } from './receipts.ts';

/**
 * `POST /api/telephony/<carrier>/whatsapp/status?whatsapp_message_id=<id>`: a sent WhatsApp message's status
 * changes (queued, sent, delivered, read, failed, undelivered), signed with `X-Twilio-Signature` as every carrier
 * callback; each change is reported to the sender's read-receipt webhook (W3). Customers' messages arrive on the
 * carrier's messaging webhook (carrier-callbacks/routes.ts).
 */
export function whatsappCallbackRoutes(deps: ReceiptDeps & { telephony: TelephonyProvider; publicUrl: string }): RouteDefinition[] {
  const { telephony } = deps;
  return [
    defineRoute({
      method: 'POST',
      path: `/telephony/${telephony.name}/whatsapp/status`,
      tag: 'Provider callbacks',
      summary: 'A sent WhatsApp message\'s status changes, as the carrier reports them',
      description: 'Parley gives this URL to the carrier with each WhatsApp message it sends; it is not called by users.',
      auth: twilioSignature({ authToken: telephony.callbackToken(), publicUrl: deps.publicUrl }),
      bodyKind: 'form',
      query: Type.Object({ whatsapp_message_id: Type.Optional(IdInteger()) }),
      body: Type.Object({
        MessageSid: Type.String({ minLength: 1, maxLength: 64 }),
        MessageStatus: Type.String({ maxLength: 32 }),
        ErrorCode: Type.Optional(Type.String({ maxLength: 16 })),
        Timestamp: Type.Optional(Type.String({ maxLength: 64 })),
      }, { additionalProperties: true }),
      responses: { 200: { description: 'Received', schema: MessageBody } },
      async handle({ query, body }) {
        await recordWhatsAppStatus(deps, {
          whatsappMessageId: query.whatsapp_message_id, providerMessageId: body.MessageSid, status: body.MessageStatus,
          errorCode: body.ErrorCode || undefined, providerTimestamp: body.Timestamp,
        });
        return { body: { message: 'Received.' } };
      },
    }),
  ];
}
