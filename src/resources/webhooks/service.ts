import type { Knex } from 'knex';
import { ConflictError, NotFoundError, UnprocessableError } from '../../lib/errors.ts';
import { pageWindow, type PageRequest } from '../../lib/pagination.ts';
import type { SecretBox } from '../../lib/secrets.ts';
import {
  attemptsOf, currentWebhookUrl, recordRedelivery, type AttemptRow, type DeliveryRow,
} from '../../webhooks/deliveries.ts';
import { rotateSigningSecret, signingSecret } from '../../webhooks/secrets.ts';
import type { DeliveryListQuery } from './schemas.ts';

export interface WebhookServiceDeps {
  knex: Knex;
  secrets: SecretBox;
}

const NOT_FOUND = 'Webhook delivery not found';

export function currentSigningSecret(deps: WebhookServiceDeps, userId: number): Promise<string> {
  return signingSecret(deps.knex, deps.secrets, userId);
}

export function rotateSecret(deps: WebhookServiceDeps, userId: number, now: Date): Promise<{ secret: string; previousExpiresAt: Date }> {
  return rotateSigningSecret(deps.knex, deps.secrets, userId, now);
}

/** A page of the caller's deliveries, newest first, with their attempts. */
export async function listDeliveries(knex: Knex, userId: number, query: DeliveryListQuery, page: PageRequest) {
  const filtered = knex<DeliveryRow>('webhook_deliveries').where({ userId })
    .modify((builder) => {
      if (query.assistant_id !== undefined) void builder.where({ assistantId: query.assistant_id });
      if (query.call_id !== undefined) void builder.where({ callId: query.call_id });
      if (query.status !== undefined) void builder.where('status', query.status);
    });
  const { offset, limit } = pageWindow(page);
  const [counted, deliveries] = await Promise.all([
    filtered.clone().count<{ count: string }[]>('* as count'),
    filtered.clone().orderBy('id', 'desc').offset(offset).limit(limit) as Promise<DeliveryRow[]>,
  ]);
  return { deliveries, attempts: groupByDelivery(await attemptsOf(knex, deliveries.map((delivery) => delivery.id))), total: Number(counted[0]?.count ?? 0) };
}

function groupByDelivery(attempts: AttemptRow[]): Map<number, AttemptRow[]> {
  const byDelivery = new Map<number, AttemptRow[]>();
  for (const attempt of attempts) byDelivery.set(attempt.deliveryId, [...(byDelivery.get(attempt.deliveryId) ?? []), attempt]);
  return byDelivery;
}

/**
 * A new delivery of a delivery's event, with the same event id and body, to where the assistant's webhook of its
 * kind points now (a URL fixed since is used). Not while the delivery is still being attempted, nor when the
 * webhook is turned off, nor for an inbound call's webhook (its answer was for a call that has been answered since).
 */
export async function redeliver(knex: Knex, userId: number, deliveryId: number): Promise<DeliveryRow> {
  const original = await knex<DeliveryRow>('webhook_deliveries').where({ id: deliveryId, userId }).first();
  if (!original) throw new NotFoundError(NOT_FOUND);
  if (original.kind === 'call.inbound') throw new UnprocessableError('An inbound call\'s webhook is asked once, before the call is answered: it cannot be redelivered.');
  if (original.status === 'pending') throw new ConflictError('The delivery is still being attempted; redeliver it once it has ended.');
  const url = await currentWebhookUrl(knex, original);
  if (url === null) throw new UnprocessableError("The assistant's webhook is turned off: turn it on to redeliver.");
  const { deliveryId: id } = await recordRedelivery(knex, original, url);
  const created = await knex<DeliveryRow>('webhook_deliveries').where({ id }).first();
  if (!created) throw new NotFoundError(NOT_FOUND);
  return created;
}
