import { Type } from '@sinclair/typebox';
import { FilledString, IdField, IdInteger, IsoTimestamp, nullable } from '../../api/schemas.ts';
import { QUALITY_RATINGS, SENDER_STATUSES, TEMPLATE_CATEGORIES, TEMPLATE_STATUSES } from './model.ts';

const Phone = (description: string) => Type.String({ minLength: 1, maxLength: 32, description, examples: ['+4915112345678'] });
const WebhookUrl = Type.String({ format: 'uri', maxLength: 2048, pattern: '^https?://', description: 'Where read receipts (W3) are posted; `null` turns them off.' });

/** `GET /user/whatsapp/senders` */
export const SendersQuery = Type.Object({
  status: Type.Optional(Type.String({ enum: ['online', 'all'], default: 'online', description: '`online` (default): senders that can send now; `all`.' })),
});
export const TemplatesQuery = Type.Object({
  status: Type.Optional(Type.String({ enum: ['approved', 'all'], default: 'approved', description: '`approved` (default): templates that can be sent; `all`.' })),
});
export const SenderParams = Type.Object({ senderId: IdInteger() });
export const TemplateParams = Type.Object({ senderId: IdInteger(), templateId: IdInteger() });

export const SenderItem = Type.Object({
  id: Type.Integer(),
  phone_number: Type.String({ description: 'E.164.' }),
  display_name: Type.String(),
  status: Type.String({ enum: [...SENDER_STATUSES] }),
  quality_rating: Type.String({ enum: [...QUALITY_RATINGS] }),
  messaging_limit: nullable(Type.Integer({ description: 'Business-initiated conversations a day; null: unlimited.' })),
  messaging_limit_formatted: Type.String({ examples: ['1K/day', 'Unlimited'] }),
}, { title: 'WhatsAppSender' });

export const SenderList = Type.Object({ data: Type.Array(SenderItem) });

export const TemplateItem = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  language: Type.String(),
  category: Type.String({ enum: [...TEMPLATE_CATEGORIES] }),
  status: Type.String({ enum: [...TEMPLATE_STATUSES] }),
  body_text: Type.String(),
  variables: Type.Array(Type.String(), { description: 'The placeholders of `body_text`, `{{1}}` as "1", in order.' }),
  has_variables: Type.Boolean(),
}, { title: 'WhatsAppTemplate' });

export const TemplateList = Type.Object({ data: Type.Array(TemplateItem) });

/** `POST /user/whatsapp/send` */
export const TemplateSendBody = Type.Object({
  sender_id: IdField(),
  template_id: IdField(),
  recipient_phone: Phone("The customer's WhatsApp number, E.164."),
  recipient_name: Type.Optional(Type.String({ maxLength: 255 })),
  variables: Type.Optional(Type.Record(Type.String({ pattern: '^[0-9]{1,2}$' }), Type.String({ maxLength: 1024 }), {
    description: 'A value per placeholder of the template: `{"1": "Anna", "2": "Tuesday"}`; every placeholder needs one.',
  })),
});

/** `POST /user/whatsapp/send-freeform` */
export const FreeformSendBody = Type.Object({
  sender_id: IdField(),
  recipient_phone: Phone("The customer's WhatsApp number, E.164."),
  // A blank message is missing, as Laravel trims input.
  message: FilledString({ maxLength: 4096, description: 'At most 4096 characters (WhatsApp\'s limit).' }),
});

export const SessionStatusSchema = Type.Object({
  is_open: Type.Boolean(),
  can_send_freeform: Type.Boolean(),
  requires_template: Type.Boolean(),
  message: Type.String(),
  minutes_remaining: Type.Integer(),
  expires_at: nullable(IsoTimestamp),
}, { title: 'WhatsAppSessionStatus' });

const Sent = {
  success: Type.Literal(true),
  conversation_id: Type.String({ description: 'The conversation (uuid) of the sender and the customer.' }),
  message_id: Type.Integer({ description: 'The message in the conversation\'s history.' }),
  whatsapp_message_id: Type.String({ description: 'Parley\'s id of the WhatsApp message, as read receipts name it.' }),
  message_sid: Type.String({ description: 'The carrier\'s id of the message (Twilio\'s MessageSid).' }),
  status: Type.Literal('queued'),
};
export const TemplateSent = Type.Object(Sent, { title: 'WhatsAppTemplateSent' });
export const FreeformSent = Type.Object({ ...Sent, session_status: SessionStatusSchema }, { title: 'WhatsAppFreeformSent' });

/** `GET /user/whatsapp/session-status` */
export const SessionQuery = Type.Object({ sender_id: IdInteger(), recipient_phone: Phone("The customer's WhatsApp number, E.164.") });
export const SessionAnswer = Type.Object({
  success: Type.Literal(true),
  has_conversation: Type.Boolean(),
  conversation_id: Type.Optional(Type.String()),
  customer_name: Type.Optional(nullable(Type.String())),
  last_customer_message_at: Type.Optional(nullable(IsoTimestamp)),
  session_status: SessionStatusSchema,
}, { title: 'WhatsAppSession' });

/** Parley's extension: `POST /user/whatsapp/senders` and `PATCH /user/whatsapp/senders/{senderId}`. */
export const SenderBody = Type.Object({
  phone_number_id: IdField({ description: 'One of your numbers with an active subscription; one sender per number.' }),
  assistant_id: IdField({ description: 'Your assistant that answers the customers\' messages.' }),
  display_name: Type.String({ minLength: 1, maxLength: 255 }),
  status: Type.Optional(Type.String({ enum: [...SENDER_STATUSES], default: 'online', description: '`offline` refuses sends (SENDER_OFFLINE).' })),
  quality_rating: Type.Optional(Type.String({ enum: [...QUALITY_RATINGS], default: 'high' })),
  messaging_limit: Type.Optional(nullable(Type.Integer({ minimum: 1, maximum: 10_000_000 }))),
  webhook_url: Type.Optional(nullable(WebhookUrl)),
});
export const SenderPatch = Type.Partial(Type.Omit(SenderBody, ['phone_number_id']));

export const SenderSettings = Type.Object({
  ...SenderItem.properties,
  assistant_id: Type.Integer(),
  phone_number_id: Type.Integer(),
  webhook_url: nullable(Type.String()),
  signing_secret: Type.Optional(Type.String({ description: 'Only when the sender is created: signs its read receipts (`X-Signature-256`). Keep it.' })),
}, { title: 'WhatsAppSenderSettings' });
export const SenderAnswer = Type.Object({ success: Type.Literal(true), data: SenderSettings });

/** Parley's extension: `POST /user/whatsapp/senders/{senderId}/templates`. */
export const TemplateBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255, pattern: '^[a-z0-9_]+$', description: 'Lowercase letters, digits and underscores, as Meta names templates.' }),
  language: Type.String({ minLength: 2, maxLength: 16, pattern: '^[a-z]{2,3}(_[A-Z]{2})?$', examples: ['en', 'de', 'en_US'] }),
  category: Type.String({ enum: [...TEMPLATE_CATEGORIES] }),
  status: Type.Optional(Type.String({ enum: [...TEMPLATE_STATUSES], default: 'approved', description: 'As Meta decided; only `approved` templates are sent.' })),
  body_text: Type.String({ minLength: 1, maxLength: 1024, description: 'With `{{1}}`, `{{2}}`… placeholders.' }),
  content_sid: Type.Optional(nullable(Type.String({ pattern: '^HX[0-9a-f]{32}$', description: 'Twilio\'s Content SID of the approved template; without it the rendered text is sent.' }))),
});
export const TemplateAnswer = Type.Object({ success: Type.Literal(true), data: TemplateItem });
export const Deleted = Type.Object({ success: Type.Literal(true), message: Type.String() });
