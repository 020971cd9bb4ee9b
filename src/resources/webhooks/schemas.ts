import { Type, type Static } from '@sinclair/typebox';
import { IdInteger, LaravelPage, nullable, PageNumber } from '../../api/schemas.ts';
import { DELIVERY_STATUSES, WEBHOOK_KINDS } from '../../webhooks/deliveries.ts';

/** The query of `GET /user/webhook-deliveries`; the filters are optional and combine. */
export const DeliveryListQuery = Type.Object({
  assistant_id: Type.Optional(IdInteger()),
  call_id: Type.Optional(IdInteger()),
  status: Type.Optional(Type.String({ enum: [...DELIVERY_STATUSES] })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 15, description: '1 to 100, default 15.' })),
  page: Type.Optional(PageNumber()),
});
export type DeliveryListQuery = Static<typeof DeliveryListQuery>;

const IsoTimestamp = Type.String({ format: 'date-time', examples: ['2026-11-27T09:00:00.000000Z'] });

export const DeliveryAttemptItem = Type.Object({
  attempt: Type.Integer({ description: '1 for the first attempt of this delivery.' }),
  attempted_at: IsoTimestamp,
  status_code: nullable(Type.Integer({ description: "The receiver's HTTP status; null when no answer came." })),
  latency_ms: Type.Integer(),
  response_excerpt: Type.String({ description: 'The first kilobyte of the answer.' }),
  error: nullable(Type.String({ description: 'Why no answer came (a timeout, a refused address, a network error).' })),
}, { title: 'WebhookDeliveryAttempt' });

export const DeliveryItem = Type.Object({
  id: Type.Integer(),
  event_id: Type.String({ format: 'uuid', description: 'Sent as `Idempotency-Key`; the same on every redelivery of the event.' }),
  kind: Type.String({ enum: [...WEBHOOK_KINDS] }),
  assistant_id: nullable(Type.Integer()),
  call_id: nullable(Type.Integer()),
  conversation_id: nullable(Type.Integer()),
  redelivery_of: nullable(Type.Integer({ description: 'The delivery this one sends again.' })),
  url: Type.String(),
  status: Type.String({
    enum: [...DELIVERY_STATUSES],
    description: '`pending`: attempts to come; `delivered`: a 2xx; `failed`: an answer retrying cannot fix (a 4xx but 408 and 429); '
      + '`dead`: every attempt failed; `cancelled`: the webhook was turned off.',
  }),
  attempts_count: Type.Integer(),
  next_attempt_at: nullable(IsoTimestamp),
  last_error: nullable(Type.String()),
  payload: Type.Unknown({ description: 'The JSON body sent.' }),
  attempts: Type.Array(DeliveryAttemptItem),
  created_at: IsoTimestamp,
  updated_at: IsoTimestamp,
}, { title: 'WebhookDelivery' });

export const DeliveryPage = LaravelPage(DeliveryItem, 'WebhookDeliveryPage');

export const SigningSecret = Type.Object({
  data: Type.Object({ secret: Type.String({ pattern: '^whsec_', description: 'Signs `X-Parley-Signature`; keep it on the receiving side only.' }) }),
}, { title: 'WebhookSigningSecret' });

export const RotatedSigningSecret = Type.Object({
  message: Type.Literal('Webhook signing secret rotated successfully'),
  data: Type.Object({
    secret: Type.String({ pattern: '^whsec_' }),
    previous_secret_expires_at: IsoTimestamp,
  }),
}, { title: 'RotatedWebhookSigningSecret' });

export const Redelivered = Type.Object({
  message: Type.Literal('Webhook redelivery queued'),
  data: DeliveryItem,
});
