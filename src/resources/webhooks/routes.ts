import type { Knex } from 'knex';
import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { IdParams, MessageBody } from '../../api/schemas.ts';
import type { Clock } from '../../lib/clock.ts';
import { lengthAwarePage } from '../../lib/pagination.ts';
import type { SecretBox } from '../../lib/secrets.ts';
import { isoTimestamp } from '../../lib/time.ts';
import type { TemporalClient } from '../../temporal/client.ts';
import { startWebhookDelivery } from '../../temporal/starters.ts';
import { DeliveryListQuery, DeliveryPage, Redelivered, RotatedSigningSecret, SigningSecret } from './schemas.ts';
import { deliveryItem } from './serialize.ts';
import { currentSigningSecret, listDeliveries, redeliver, rotateSecret } from './service.ts';

export interface WebhookRouteDeps {
  knex: Knex;
  secrets: SecretBox;
  temporal: TemporalClient;
  /** Base URL of the API's clients, for page links. */
  publicUrl: string;
  now: Clock;
}

const TAG = 'Webhooks';

/** The account's webhook signing secret and the delivery log of its webhooks. */
export function webhookRoutes(deps: WebhookRouteDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/user/webhook-signing-secret',
      tag: TAG,
      summary: "The secret that signs the account's webhooks (`X-Parley-Signature`); made on first read",
      auth: 'bearer',
      responses: { 200: { description: 'The secret', schema: SigningSecret } },
      async handle({ auth }) {
        return { body: { data: { secret: await currentSigningSecret(deps, auth.user.id) } } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/user/webhook-signing-secret/rotate',
      tag: TAG,
      summary: 'Issue a new signing secret; for 24 hours webhooks carry a signature by the new and by the previous one',
      auth: 'bearer',
      responses: { 200: { description: 'Rotated', schema: RotatedSigningSecret } },
      async handle({ auth }) {
        const { secret, previousExpiresAt } = await rotateSecret(deps, auth.user.id, deps.now());
        return { body: { message: 'Webhook signing secret rotated successfully', data: { secret, previous_secret_expires_at: isoTimestamp(previousExpiresAt) } } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/user/webhook-deliveries',
      tag: TAG,
      summary: "The caller's webhook deliveries, newest first, with each attempt; filtered and paginated",
      auth: 'bearer',
      query: DeliveryListQuery,
      responses: { 200: { description: 'A page of deliveries', schema: DeliveryPage } },
      async handle({ auth, query, ctx }) {
        const page = { page: query.page ?? 1, perPage: query.per_page ?? 15 };
        const { deliveries, attempts, total } = await listDeliveries(deps.knex, auth.user.id, query, page);
        return {
          body: lengthAwarePage({
            data: deliveries.map((delivery) => deliveryItem(delivery, attempts.get(delivery.id) ?? [])),
            total,
            page,
            path: `${deps.publicUrl}/api/user/webhook-deliveries`,
            query: ctx.query,
          }),
        };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/user/webhook-deliveries/{id}/redeliver',
      tag: TAG,
      summary: 'Send a delivered, failed, dead or cancelled event again: a new delivery with the same event id and body',
      auth: 'bearer',
      params: IdParams,
      responses: {
        200: { description: 'Queued', schema: Redelivered },
        404: { description: 'No such delivery of the caller: `Webhook delivery not found`', schema: MessageBody },
        409: { description: 'The delivery is still being attempted', schema: MessageBody },
        422: { description: "The assistant's webhook is turned off, or the delivery is an inbound call's (asked once, never redelivered)", schema: MessageBody },
      },
      async handle({ auth, params }) {
        const delivery = await redeliver(deps.knex, auth.user.id, params.id);
        await startWebhookDelivery(deps.temporal, { deliveryId: delivery.id, userId: delivery.userId, assistantId: delivery.assistantId });
        return { body: { message: 'Webhook redelivery queued', data: deliveryItem(delivery, []) } };
      },
    }),
  ];
}
