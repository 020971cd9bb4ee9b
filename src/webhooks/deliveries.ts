import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

/**
 * The delivery log (migrations/20261127000003): what other parts of Parley call to send an event, and what the
 * attempts read and write. Sending itself is activities/webhook-attempts.ts': the first attempt in the activity
 * that queues a post-call or conversation-ended event, the retries in the `webhookDelivery` workflow
 * (workflows/webhook-delivery.ts).
 */

/**
 * `call.ended`: the post-call webhook (W1); `conversation.ended` (W2); `call.inbound`: before an inbound call is
 * answered; `whatsapp.message_status`: a WhatsApp sender's read receipt (W3), which goes to the sender's URL.
 */
export type WebhookKind = 'call.ended' | 'conversation.ended' | 'call.inbound' | 'whatsapp.message_status';
export const WEBHOOK_KINDS: readonly WebhookKind[] = ['call.ended', 'conversation.ended', 'call.inbound', 'whatsapp.message_status'];
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'dead' | 'cancelled';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'failed', 'dead', 'cancelled'];

export interface WebhookEvent {
  userId: number;
  assistantId: number;
  callId?: number | null;
  conversationId?: number | null;
  /** The sender of a read receipt. */
  whatsappSenderId?: number | null;
  kind: WebhookKind;
  url: string;
  payload: Record<string, unknown>;
}

export interface DeliveryRow {
  id: number;
  eventId: string;
  userId: number;
  assistantId: number | null;
  callId: number | null;
  conversationId: number | null;
  whatsappSenderId: number | null;
  redeliveryOf: number | null;
  kind: WebhookKind;
  url: string;
  /** The JSON body exactly as sent and signed. */
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: Date | null;
  /** When another delivery's success cut this one's wait short (once per delivery); null until then. */
  wokenAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface AttemptRow {
  id: number;
  deliveryId: number;
  attempt: number;
  attemptedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  responseExcerpt: string;
  error: string | null;
}

/**
 * Records an event for delivery with a new event id, as a `pending` delivery; then make its first attempt
 * (activities/webhook-attempts.ts `first`) or start its `webhookDelivery` workflow (starters.ts
 * `startWebhookDelivery` from the API, `startWebhookDeliveryChild` from a workflow).
 */
export async function recordWebhookEvent(knex: Knex, event: WebhookEvent): Promise<{ deliveryId: number; eventId: string }> {
  const eventId = randomUUID();
  const [row] = await knex<DeliveryRow>('webhook_deliveries').insert({
    eventId,
    userId: event.userId,
    assistantId: event.assistantId,
    callId: event.callId ?? null,
    conversationId: event.conversationId ?? null,
    whatsappSenderId: event.whatsappSenderId ?? null,
    kind: event.kind,
    url: event.url,
    payload: JSON.stringify(event.payload),
  }, ['id']);
  return { deliveryId: Number(row?.id), eventId };
}

/** A new delivery of the same event (same event id and payload) to `url`; its attempts start from none. */
export async function recordRedelivery(knex: Knex, original: DeliveryRow, url: string): Promise<{ deliveryId: number; eventId: string }> {
  const [row] = await knex<DeliveryRow>('webhook_deliveries').insert({
    eventId: original.eventId,
    userId: original.userId,
    assistantId: original.assistantId,
    callId: original.callId,
    conversationId: original.conversationId,
    whatsappSenderId: original.whatsappSenderId,
    redeliveryOf: original.id,
    kind: original.kind,
    url,
    payload: original.payload,
  }, ['id']);
  return { deliveryId: Number(row?.id), eventId: original.eventId };
}

export async function findDelivery(knex: Knex, deliveryId: number): Promise<DeliveryRow | undefined> {
  return knex<DeliveryRow>('webhook_deliveries').where({ id: deliveryId }).first();
}

/**
 * Where the delivery's webhook goes now (its assistant's of its kind, or its WhatsApp sender's read receipts),
 * or null when it is turned off: read at each attempt, so that turning a webhook off stops the deliveries still
 * to come at once.
 */
export async function currentWebhookUrl(knex: Knex, delivery: Pick<DeliveryRow, 'assistantId' | 'whatsappSenderId' | 'kind'>): Promise<string | null> {
  const { assistantId, kind } = delivery;
  if (kind === 'whatsapp.message_status') {
    if (delivery.whatsappSenderId === null) return null;
    const sender = await knex('whatsapp_senders').where({ id: delivery.whatsappSenderId }).first<{ webhookUrl: string | null } | undefined>('webhookUrl');
    return sender?.webhookUrl ?? null;
  }
  if (assistantId === null) return null;
  const assistant = await knex('assistants').where({ id: assistantId })
    .first<{ isWebhookActive: boolean; webhookUrl: string | null; inboundWebhookUrl: string | null; conversationEndedWebhookUrl: string | null } | undefined>(
      'isWebhookActive', 'webhookUrl', 'inboundWebhookUrl', 'conversationEndedWebhookUrl',
    );
  if (!assistant) return null;
  switch (kind) {
    case 'call.ended':
      return assistant.isWebhookActive ? assistant.webhookUrl : null;
    case 'call.inbound':
      return assistant.inboundWebhookUrl;
    case 'conversation.ended':
      return assistant.conversationEndedWebhookUrl;
  }
  return null;
}

export interface AttemptRecord {
  attempt: number;
  attemptedAt: Date;
  statusCode?: number;
  latencyMs: number;
  excerpt: string;
  error?: string;
}

/** A delivery's `last_error` after an answer that did not deliver it. */
function statusError(statusCode: number): string {
  return `HTTP ${statusCode}`;
}

/**
 * Stores one attempt and where the delivery stands after it, together; an attempt stored already (the activity
 * was retried after it) is kept as first stored.
 */
export async function recordAttempt(
  knex: Knex,
  deliveryId: number,
  attempt: AttemptRecord,
  after: { status: DeliveryStatus; nextAttemptAt: Date | null },
): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx('webhook_delivery_attempts').insert({
      deliveryId,
      attempt: attempt.attempt,
      attemptedAt: attempt.attemptedAt,
      statusCode: attempt.statusCode ?? null,
      latencyMs: attempt.latencyMs,
      responseExcerpt: attempt.excerpt,
      error: attempt.error ?? null,
    }).onConflict(['delivery_id', 'attempt']).ignore();
    const attempts = await trx('webhook_delivery_attempts').where({ deliveryId }).count<{ count: string }[]>('* as count');
    await trx('webhook_deliveries').where({ id: deliveryId }).update({
      status: after.status,
      attempts: Number(attempts[0]?.count ?? 0),
      lastError: attempt.error ?? (attempt.statusCode !== undefined && (attempt.statusCode < 200 || attempt.statusCode >= 300) ? statusError(attempt.statusCode) : null),
      nextAttemptAt: after.nextAttemptAt,
      updatedAt: new Date(),
    });
  });
}

/**
 * How many of an endpoint's deliveries may be woken and not yet delivered at once: each success wakes at most
 * this many, fewer while earlier ones are still on their way, so a backlog reaches a receiver that has just come
 * back as a steady stream rather than all at once.
 */
export const WAKE_BATCH = 25;
/**
 * How long a woken delivery still pending holds its place: its attempt is on its way, or failed again (a receiver
 * still unsteady, which slows the waking down), or its signal was lost; after this, it no longer counts.
 */
const WAKE_WINDOW_MS = 60_000;

/** A delivery `wakeWaitingDeliveries` marked due now, and when its own wait was to end. */
export interface WokenDelivery {
  id: number;
  dueAt: Date;
}

/**
 * After a delivery to `url` was delivered, marks the account's other deliveries to that URL that wait for a later
 * retry as due now, and returns them (oldest first) for their workflows to be told. Left out: a delivery being
 * attempted (its wait is over), one woken before (an attempt that failed after a wake failed for reasons of its
 * own, or the receiver is still unsteady: it keeps to the policy rather than spending its attempts at every
 * success), and one answered 429 (the receiver asked for fewer requests). Two successes at once may wake up to
 * twice the batch; none wakes a delivery another is waking.
 */
export async function wakeWaitingDeliveries(knex: Knex, endpoint: { userId: number; url: string }, now: Date): Promise<WokenDelivery[]> {
  const pending = (db: Knex) => db('webhook_deliveries').where({ userId: endpoint.userId, url: endpoint.url, status: 'pending' });
  const onTheirWay = await pending(knex).where('wokenAt', '>', new Date(now.getTime() - WAKE_WINDOW_MS)).count<{ count: string | number }[]>({ count: '*' });
  const room = WAKE_BATCH - Number(onTheirWay[0]?.count ?? 0);
  if (room <= 0) return [];
  return knex.transaction(async (trx) => {
    const waiting: { id: number | string; nextAttemptAt: Date }[] = await pending(trx).whereNull('wokenAt').where('nextAttemptAt', '>', now)
      .whereRaw('last_error is distinct from ?', [statusError(429)]).orderBy('id').limit(room).forUpdate().skipLocked().select('id', 'nextAttemptAt');
    if (waiting.length === 0) return [];
    await trx('webhook_deliveries').whereIn('id', waiting.map((row) => row.id)).update({ wokenAt: now, nextAttemptAt: now, updatedAt: now });
    return waiting.map((row) => ({ id: Number(row.id), dueAt: row.nextAttemptAt }));
  });
}

/**
 * Undoes the wake of deliveries whose workflow was not there to be told: one whose first attempt, made where its
 * event was queued, has failed and whose workflow is about to start. That workflow waits the first attempt's own
 * delay, so the row says so again, and a later success may wake it. A delivery settled since is left as it is.
 */
export async function unwakeDeliveries(knex: Knex, woken: readonly WokenDelivery[], wokenAt: Date): Promise<void> {
  await Promise.all(woken.map(({ id, dueAt }) => knex('webhook_deliveries').where({ id, status: 'pending', wokenAt })
    .update({ wokenAt: null, nextAttemptAt: dueAt, updatedAt: new Date() })));
}

/** Ends a delivery without an attempt (its webhook was turned off). */
export async function settleDelivery(knex: Knex, deliveryId: number, status: DeliveryStatus, reason: string): Promise<void> {
  await knex('webhook_deliveries').where({ id: deliveryId }).update({ status, lastError: reason, nextAttemptAt: null, updatedAt: new Date() });
}

export async function attemptsOf(knex: Knex, deliveryIds: number[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  return knex<AttemptRow>('webhook_delivery_attempts').whereIn('deliveryId', deliveryIds).orderBy([{ column: 'deliveryId' }, { column: 'attempt' }]);
}
