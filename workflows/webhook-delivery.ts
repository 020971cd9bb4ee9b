import { ParentClosePolicy, proxyActivities, sleep, startChild } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { searchAttributes, workflowIds } from '../src/temporal/names.ts';
import { nonRetryableErrorTypes, type WebhookDeliveryInput, type WebhookDeliveryResult } from '../src/temporal/shared.ts';
import { DEFAULT_DELIVERY_POLICY, type DeliveryPolicy } from '../src/webhooks/policy.ts';

// One attempt: the receiver has ATTEMPT_TIMEOUT_MS (10 s) to answer, and the activity never fails for what the
// receiver does. Its own retries are for the database, with patience for a restart of it.
const delivering = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', maximumAttempts: 30, nonRetryableErrorTypes },
});

/**
 * One delivery of a webhook event (`webhook-<deliveryId>`): attempts, each an activity that sends the signed
 * request and stores how it went, with durable timers between them as the policy (src/webhooks/policy.ts) and
 * the receiver's `Retry-After` say, so neither a receiver that is down for hours nor a restarted worker loses the
 * event. Ends delivered, failed (an answer that retrying cannot fix), dead (every attempt failed) or cancelled
 * (the webhook was turned off meanwhile).
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const policy: DeliveryPolicy = { ...DEFAULT_DELIVERY_POLICY, ...input.policy };
  for (let attempt = 1; ; attempt++) {
    const result = await delivering.attemptWebhookDelivery({ deliveryId: input.deliveryId, attempt, policy });
    if (result.outcome !== 'retry') return { status: result.outcome, attempts: attempt };
    await sleep(result.delayMs);
  }
}

/**
 * Starts a delivery from another workflow, as a child that outlives it (the delivery may take hours; the
 * caller's run must not wait for it, nor end it by ending).
 */
export async function startWebhookDeliveryChild(
  delivery: { deliveryId: number; userId: number; assistantId: number },
  policy?: Partial<DeliveryPolicy>,
): Promise<void> {
  await startChild(webhookDeliveryWorkflow, {
    workflowId: workflowIds.webhookDelivery(delivery.deliveryId),
    args: [{ deliveryId: delivery.deliveryId, ...(policy ? { policy } : {}) }],
    parentClosePolicy: ParentClosePolicy.ABANDON,
    typedSearchAttributes: [
      { key: searchAttributes.userId, value: delivery.userId },
      { key: searchAttributes.assistantId, value: delivery.assistantId },
    ],
  });
}
