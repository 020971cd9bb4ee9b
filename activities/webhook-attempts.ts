import type { Knex } from 'knex';
import { webhookDeliveries, webhookLag } from '../src/lib/metrics.ts';
import type { Logger } from '../src/logger.ts';
import type { Providers } from '../src/providers/index.ts';
import type { TemporalClient } from '../src/temporal/client.ts';
import type { WebhookAttemptOutcome } from '../src/temporal/shared.ts';
import { signalWebhookRetryNow } from '../src/temporal/webhook-signals.ts';
import { storedAnswer } from '../src/webhooks/answer.ts';
import {
  currentWebhookUrl, findDelivery, recordAttempt, settleDelivery, unwakeDeliveries, wakeWaitingDeliveries, type DeliveryRow, type DeliveryStatus,
} from '../src/webhooks/deliveries.ts';
import { DEFAULT_DELIVERY_POLICY, retryDelay, type DeliveryPolicy } from '../src/webhooks/policy.ts';
import { senderSigningSecret, signingSecrets } from '../src/webhooks/secrets.ts';
import { sendWebhook } from '../src/webhooks/send.ts';

export interface WebhookAttemptDependencies {
  knex: Knex;
  logger: Logger;
  providers: Pick<Providers, 'fetch' | 'secrets'>;
  /** Wakes the deliveries waiting for a receiver that has just taken one (`retryNow`). */
  temporal: Pick<TemporalClient, 'client'>;
  /** The time of attempts and signatures; the system clock but in tests. */
  now?: () => Date;
}

/**
 * Attempts of webhook deliveries, for the activities that make them: each attempt of the delivery workflow
 * (`attemptWebhookDelivery`), and the first one, made by the activity that queued the event right after it
 * stored it, so that an event the receiver takes at once costs no workflow.
 */
export function createWebhookAttempts(deps: WebhookAttemptDependencies) {
  const { knex } = deps;
  const now = deps.now ?? (() => new Date());

  /**
   * After a delivered attempt: the receiver takes requests again, so the account's other deliveries to it that wait
   * for a later retry are told to try now, a bounded batch at a time (deliveries.ts). Each of them that is delivered
   * wakes more in turn. Best effort, after the attempt is stored: a failure here is logged, and their timers remain.
   */
  async function wakeOthers(delivery: DeliveryRow): Promise<void> {
    try {
      const wokenAt = now();
      const woken = await wakeWaitingDeliveries(knex, delivery, wokenAt);
      if (woken.length === 0) return;
      deps.logger.info({ deliveryId: delivery.id, woken: woken.length }, 'webhook receiver took a delivery: its waiting deliveries try now');
      const notRunning = new Set(await signalWebhookRetryNow(deps.temporal, woken.map((entry) => entry.id), deps.logger));
      if (notRunning.size > 0) await unwakeDeliveries(knex, woken.filter((entry) => notRunning.has(entry.id)), wokenAt);
    } catch (error) {
      deps.logger.warn({ err: error, deliveryId: delivery.id }, 'could not wake the deliveries waiting for this receiver');
    }
  }

  /**
   * Makes attempt `number` of a delivery and stores it: delivered on a 2xx, failed on an answer that retrying
   * cannot fix, dead when it was the policy's last, else to be retried after the policy's wait (or the
   * receiver's Retry-After). A delivery whose webhook was turned off since is cancelled without an attempt. A
   * delivered one wakes the deliveries waiting for the same receiver.
   * The answer to a post-call webhook is kept as the call's `webhook_response`.
   */
  async function attempt(delivery: DeliveryRow | undefined, number: number, policy: DeliveryPolicy): Promise<WebhookAttemptOutcome> {
    if (!delivery) return { outcome: 'cancelled' };
    const deliveryId = delivery.id;
    if (delivery.status !== 'pending') return { outcome: delivery.status };
    if (await currentWebhookUrl(knex, delivery) === null) {
      await settleDelivery(knex, deliveryId, 'cancelled', 'The webhook was turned off before this attempt.');
      webhookDeliveries.inc({ outcome: 'cancelled' });
      return { outcome: 'cancelled' };
    }
    const attemptedAt = now();
    // A read receipt is signed with its sender's secret (anchor §13.3), every other event with the account's.
    const receipt = delivery.kind === 'whatsapp.message_status' && delivery.whatsappSenderId !== null;
    const secrets = receipt
      ? [await senderSigningSecret(knex, deps.providers.secrets, delivery.whatsappSenderId!)]
      : await signingSecrets(knex, deps.providers.secrets, delivery.userId, attemptedAt);
    const result = await sendWebhook(deps.providers.fetch, {
      url: delivery.url, body: delivery.payload, eventId: delivery.eventId, kind: delivery.kind, secrets, nowMs: attemptedAt.getTime(),
      scheme: receipt ? 'sha256' : 'parley', retryRequestTimeout: policy.retryRequestTimeout ?? true,
    });
    const delayMs = result.verdict === 'retry' ? retryDelay(policy, number, result.retryAfterMs) : undefined;
    const status: DeliveryStatus = result.verdict === 'delivered' ? 'delivered' : result.verdict === 'final' ? 'failed' : delayMs === undefined ? 'dead' : 'pending';
    await recordAttempt(knex, deliveryId, {
      attempt: number, attemptedAt, statusCode: result.statusCode, latencyMs: result.latencyMs, excerpt: result.excerpt, error: result.error,
    }, { status, nextAttemptAt: delayMs === undefined ? null : new Date(attemptedAt.getTime() + delayMs) });
    if (delivery.kind === 'call.ended' && delivery.callId !== null && result.answer && result.statusCode !== undefined) {
      const answer = storedAnswer(result.statusCode, result.answer.contentType, result.answer.body);
      await knex('calls').where({ id: delivery.callId }).update({ webhookResponse: JSON.stringify(answer) });
    }
    webhookDeliveries.inc({ outcome: status === 'pending' ? 'retry' : status });
    if (status === 'delivered') {
      webhookLag.observe(Math.max(now().getTime() - delivery.createdAt.getTime(), 0) / 1000);
      await wakeOthers(delivery);
    }
    if (status === 'dead') deps.logger.warn({ deliveryId, eventId: delivery.eventId, attempts: number }, 'webhook delivery dead-lettered after its last attempt');
    return status === 'pending' ? { outcome: 'retry', delayMs: delayMs ?? 0 } : { outcome: status };
  }

  return {
    async attempt(deliveryId: number, number: number, policy: DeliveryPolicy): Promise<WebhookAttemptOutcome> {
      return attempt(await findDelivery(knex, deliveryId), number, policy);
    },

    /**
     * The first attempt of a delivery just queued, or how it went when a retried activity made it before: an
     * ended delivery says how it ended, a pending one with an attempt stored says `retry` with what is left of
     * the wait stored with it. One whose attempt was not stored (the worker died during it, or the database
     * failed after it) is attempted again, with the same event id: delivery is at least once.
     */
    async first(deliveryId: number, policy: Partial<DeliveryPolicy> | undefined): Promise<WebhookAttemptOutcome> {
      const delivery = await findDelivery(knex, deliveryId);
      if (delivery && delivery.status === 'pending' && delivery.attempts > 0) {
        return { outcome: 'retry', delayMs: Math.max((delivery.nextAttemptAt?.getTime() ?? 0) - now().getTime(), 0) };
      }
      return attempt(delivery, 1, { ...DEFAULT_DELIVERY_POLICY, ...policy });
    },
  };
}
