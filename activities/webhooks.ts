import type { Knex } from 'knex';
import type { Config } from '../src/config.ts';
import { webhookDeliveries, webhookLag } from '../src/lib/metrics.ts';
import type { Logger } from '../src/logger.ts';
import type { Providers } from '../src/providers/index.ts';
import { recordingUrl } from '../src/resources/calls/serialize.ts';
import type { QueuedPostCallWebhook, WebhookAttemptOutcome } from '../src/temporal/shared.ts';
import { storedAnswer } from '../src/webhooks/answer.ts';
import { currentWebhookUrl, findDelivery, recordAttempt, recordWebhookEvent, settleDelivery, type DeliveryStatus } from '../src/webhooks/deliveries.ts';
import { retryDelay, type DeliveryPolicy } from '../src/webhooks/policy.ts';
import { postCallPayload, postCallWebhookWanted, type PostCallFacts } from '../src/webhooks/post-call.ts';
import { senderSigningSecret, signingSecrets } from '../src/webhooks/secrets.ts';
import { sendWebhook } from '../src/webhooks/send.ts';

export interface WebhookActivityDependencies {
  knex: Knex;
  logger: Logger;
  config: Pick<Config, 'publicUrl'>;
  providers: Pick<Providers, 'fetch' | 'secrets'>;
  /** The time of attempts and signatures; the system clock but in tests. */
  now?: () => Date;
}

/** The call's row as the post-call webhook reads it: the payload's facts and what finds the rest. */
type PostCallRow = PostCallFacts['call'] & {
  userId: number;
  assistantId: number | null;
  leadId: number | null;
  campaignId: number | null;
  recordingKey: string | null;
};

export function createWebhookActivities(deps: WebhookActivityDependencies) {
  const { knex } = deps;
  const now = deps.now ?? (() => new Date());

  return {
    /**
     * Queues the post-call webhook (W1) of a finished call, when its assistant's webhook is on and, with
     * `send_webhook_only_on_completed`, the call connected. Once per call: a retried attempt finds the delivery
     * it queued.
     */
    async queuePostCallWebhook({ callId }: { callId: number }): Promise<QueuedPostCallWebhook> {
      const call = await knex('calls').where({ id: callId }).first<PostCallRow | undefined>();
      if (!call) return { outcome: 'skipped', reason: 'deleted' };
      const assistant = call.assistantId === null ? undefined : await knex('assistants').where({ id: call.assistantId })
        .first<{ id: number; isWebhookActive: boolean; webhookUrl: string | null; sendWebhookOnlyOnCompleted: boolean; includeRecordingInWebhook: boolean } | undefined>(
          'id', 'isWebhookActive', 'webhookUrl', 'sendWebhookOnlyOnCompleted', 'includeRecordingInWebhook',
        );
      if (!assistant?.isWebhookActive || !assistant.webhookUrl) return { outcome: 'skipped', reason: 'webhook_off' };
      if (!postCallWebhookWanted(call.status, assistant.sendWebhookOnlyOnCompleted)) return { outcome: 'skipped', reason: 'not_completed' };
      const queued = await knex('webhook_deliveries').where({ callId, kind: 'call.ended' }).whereNull('redeliveryOf')
        .first<{ id: number; eventId: string } | undefined>('id', 'eventId');
      const owner = { userId: call.userId, assistantId: assistant.id };
      if (queued) return { outcome: 'queued', deliveryId: queued.id, eventId: queued.eventId, ...owner };
      const facts: PostCallFacts = {
        call,
        lead: call.leadId === null ? null : (await knex('leads').where({ id: call.leadId }).first<PostCallFacts['lead'] | undefined>()) ?? null,
        campaign: call.campaignId === null ? null : (await knex('campaigns').where({ id: call.campaignId }).first<PostCallFacts['campaign'] | undefined>()) ?? null,
        recordingUrl: assistant.includeRecordingInWebhook
          ? recordingUrl(call, { secrets: deps.providers.secrets, publicUrl: deps.config.publicUrl, now: now() })
          : null,
      };
      const recorded = await recordWebhookEvent(knex, {
        ...owner, callId, kind: 'call.ended', url: assistant.webhookUrl, payload: postCallPayload(facts),
      });
      return { outcome: 'queued', ...recorded, ...owner };
    },

    /**
     * Makes attempt `attempt` of a delivery and stores it: delivered on a 2xx, failed on an answer that retrying
     * cannot fix, dead when it was the policy's last, else to be retried after the policy's wait (or the
     * receiver's Retry-After). A delivery whose webhook was turned off since is cancelled without an attempt.
     * The answer to a post-call webhook is kept as the call's `webhook_response`.
     */
    async attemptWebhookDelivery({ deliveryId, attempt, policy }: { deliveryId: number; attempt: number; policy: DeliveryPolicy }): Promise<WebhookAttemptOutcome> {
      const delivery = await findDelivery(knex, deliveryId);
      if (!delivery) return { outcome: 'cancelled' };
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
      const delayMs = result.verdict === 'retry' ? retryDelay(policy, attempt, result.retryAfterMs) : undefined;
      const status: DeliveryStatus = result.verdict === 'delivered' ? 'delivered' : result.verdict === 'final' ? 'failed' : delayMs === undefined ? 'dead' : 'pending';
      await recordAttempt(knex, deliveryId, {
        attempt, attemptedAt, statusCode: result.statusCode, latencyMs: result.latencyMs, excerpt: result.excerpt, error: result.error,
      }, { status, nextAttemptAt: delayMs === undefined ? null : new Date(attemptedAt.getTime() + delayMs) });
      if (delivery.kind === 'call.ended' && delivery.callId !== null && result.answer && result.statusCode !== undefined) {
        const answer = storedAnswer(result.statusCode, result.answer.contentType, result.answer.body);
        await knex('calls').where({ id: delivery.callId }).update({ webhookResponse: JSON.stringify(answer) });
      }
      webhookDeliveries.inc({ outcome: status === 'pending' ? 'retry' : status });
      if (status === 'delivered') webhookLag.observe(Math.max(now().getTime() - delivery.createdAt.getTime(), 0) / 1000);
      if (status === 'dead') deps.logger.warn({ deliveryId, eventId: delivery.eventId, attempts: attempt }, 'webhook delivery dead-lettered after its last attempt');
      return status === 'pending' ? { outcome: 'retry', delayMs: delayMs ?? 0 } : { outcome: status };
    },
  };
}
