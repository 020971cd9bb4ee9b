import { recordingUrl } from '../src/calls/recordings.ts';
import type { Config } from '../src/config.ts';
import type { QueuedPostCallWebhook, WebhookAttemptOutcome } from '../src/temporal/shared.ts';
import { recordWebhookEvent } from '../src/webhooks/deliveries.ts';
import type { DeliveryPolicy } from '../src/webhooks/policy.ts';
import { postCallPayload, postCallWebhookWanted, type PostCallFacts } from '../src/webhooks/post-call.ts';
import { createWebhookAttempts, type WebhookAttemptDependencies } from './webhook-attempts.ts';

export interface WebhookActivityDependencies extends WebhookAttemptDependencies {
  config: Pick<Config, 'publicUrl'>;
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
  const attempts = createWebhookAttempts(deps);

  return {
    /**
     * Queues the post-call webhook (W1) of a finished call, when its assistant's webhook is on and, with
     * `send_webhook_only_on_completed`, the call connected, and makes its first attempt. Once per call: a
     * retried attempt finds the delivery it queued, and the first attempt it made if it was stored.
     */
    async queuePostCallWebhook({ callId, policy }: { callId: number; policy?: Partial<DeliveryPolicy> }): Promise<QueuedPostCallWebhook> {
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
      if (queued) return { outcome: 'queued', deliveryId: queued.id, eventId: queued.eventId, ...owner, first: await attempts.first(queued.id, policy) };
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
      return { outcome: 'queued', ...recorded, ...owner, first: await attempts.first(recorded.deliveryId, policy) };
    },

    /** One attempt of a delivery's workflow (webhook-attempts.ts). */
    async attemptWebhookDelivery({ deliveryId, attempt, policy }: { deliveryId: number; attempt: number; policy: DeliveryPolicy }): Promise<WebhookAttemptOutcome> {
      return attempts.attempt(deliveryId, attempt, policy);
    },
  };
}
