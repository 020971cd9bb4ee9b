import { Type } from '@sinclair/typebox';
import { IdField, LaravelPage, nullable, PageNumber } from '../../api/schemas.ts';
import { SMS_STATUSES } from './model.ts';

const SqlTimestamp = Type.String({ examples: ['2025-08-04 15:30:00'], description: 'UTC, `YYYY-MM-DD HH:MM:SS`.' });

export const SendSmsBody = Type.Object({
  from: IdField({ description: 'The id of one of your SMS-capable numbers with an active subscription (`GET /user/phone-numbers` lists them).' }),
  to: Type.String({ minLength: 1, maxLength: 32, description: "The recipient's number, E.164.", examples: ['+14155550123'] }),
  body: Type.String({ minLength: 1, maxLength: 300, description: 'At most 300 characters; billed per segment (160 GSM-7 characters, or 70 of other scripts, a single segment; 153 or 67 a part beyond).' }),
});

export const SmsSent = Type.Object({
  message: Type.Literal('SMS sent successfully'),
  data: Type.Object({
    sms_id: Type.Integer(),
    from: Type.String({ description: 'The sending number, E.164.' }),
    to: Type.String(),
    body: Type.String(),
    segments: Type.Integer(),
    cost: Type.Number({ description: 'What the message was charged.' }),
    currency: Type.Literal('USD'),
    status: Type.Literal('sent', { description: 'The carrier has the message; `GET /user/sms` follows its delivery.' }),
  }),
}, { title: 'SmsSent' });

/**
 * The query of `GET /user/sms`: newest first, one direction or both.
 */
export const SmsListQuery = Type.Object({
  direction: Type.Optional(Type.String({ enum: ['outbound', 'inbound'] })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 15, description: '1 to 100, default 15.' })),
  page: Type.Optional(PageNumber()),
});

export const SmsItem = Type.Object({
  id: Type.Integer(),
  direction: Type.String({ enum: ['outbound', 'inbound'] }),
  phone_number_id: nullable(Type.Integer({ description: 'Your number that sent or received it; null once that number is deleted.' })),
  from: Type.String(),
  to: Type.String(),
  body: Type.String(),
  encoding: Type.String({ enum: ['GSM-7', 'UCS-2'] }),
  segments: Type.Integer(),
  cost: Type.Number({ description: 'USD charged; 0 for a refunded or inbound message.' }),
  currency: Type.Literal('USD'),
  status: Type.String({ enum: [...SMS_STATUSES] }),
  error_code: nullable(Type.String({ description: "The carrier's error code (Twilio's), when it reported one." })),
  error_message: nullable(Type.String()),
  sms_sid: nullable(Type.String({ description: "The carrier's id of the message." })),
  created_at: SqlTimestamp,
  updated_at: SqlTimestamp,
}, { title: 'Sms' });

export const SmsPage = LaravelPage(SmsItem, 'SmsPage');
