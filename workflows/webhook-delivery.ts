import { condition, defineSignal, ParentClosePolicy, patched, proxyActivities, setHandler, sleep, startChild } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { searchAttributes, workflowIds } from '../src/temporal/names.ts';
import {
  nonRetryableErrorTypes, webhookSignals, type QueuedWebhook, type WebhookDeliveryInput, type WebhookDeliveryResult,
} from '../src/temporal/shared.ts';
import { DEFAULT_DELIVERY_POLICY, type DeliveryPolicy } from '../src/webhooks/policy.ts';

// One attempt: the receiver has ATTEMPT_TIMEOUT_MS (10 s) to answer, and the activity never fails for what the
// receiver does. Its own retries are for the database, with patience for a restart of it.
const delivering = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', maximumAttempts: 30, nonRetryableErrorTypes },
});

// Queuing an event, for the workflows that send one: its activity stores the event and then makes the first
// attempt (the receiver's 10 s and the database's reads and writes). Retries are for the database; one after
// the event was stored finds it, and finds the attempt stored or makes it again.
export const webhookQueueing = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 20, nonRetryableErrorTypes },
});

export const retryNowSignal = defineSignal(webhookSignals.retryNow);

/**
 * One delivery of a webhook event (`webhook-<deliveryId>`): attempts, each an activity that sends the signed
 * request and stores how it went, with durable timers between them as the policy (src/webhooks/policy.ts) and
 * the receiver's `Retry-After` say, so neither a receiver that is down for hours nor a restarted worker loses the
 * event. Ends delivered, failed (an answer that retrying cannot fix), dead (every attempt failed) or cancelled
 * (the webhook was turned off meanwhile). Started `after` a first attempt made elsewhere, it waits the delay that
 * attempt stored and goes on from the next.
 *
 * Signal `retryNowSignal`: the receiver has just taken another delivery of the account, so the current wait ends
 * and the next attempt is made now; it is the policy's next attempt, so the numbering and the dead-lettering after
 * the last stay as they are.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const policy: DeliveryPolicy = { ...DEFAULT_DELIVERY_POLICY, ...input.policy };
  // A run begun before `retryNow` existed keeps its plain timers: a signal sent to it while an older worker ran it
  // was left unhandled there, and handling it on replay would take other steps than its history.
  const wakeable = patched('webhook-retry-now');
  let woken = false;
  setHandler(retryNowSignal, () => {
    woken = true;
  });
  // A wake-up that comes while an attempt is being made is kept for the wait after it: a delivery is woken only
  // once its attempt has been stored with the next wait (src/webhooks/deliveries.ts), so it tells of the receiver
  // after that attempt.
  const wait = async (delayMs: number) => {
    if (!wakeable) return sleep(delayMs);
    await condition(() => woken, delayMs);
    woken = false;
  };
  if (input.after) await wait(input.after.delayMs);
  for (let attempt = (input.after?.attempts ?? 0) + 1; ; attempt++) {
    const result = await delivering.attemptWebhookDelivery({ deliveryId: input.deliveryId, attempt, policy });
    if (result.outcome !== 'retry') return { status: result.outcome, attempts: attempt };
    await wait(result.delayMs);
  }
}

/**
 * Starts a delivery from another workflow, as a child that outlives it (the delivery may take hours; the
 * caller's run must not wait for it, nor end it by ending).
 */
export async function startWebhookDeliveryChild(
  delivery: { deliveryId: number; userId: number; assistantId: number },
  policy?: Partial<DeliveryPolicy>,
  after?: WebhookDeliveryInput['after'],
): Promise<void> {
  await startChild(webhookDeliveryWorkflow, {
    workflowId: workflowIds.webhookDelivery(delivery.deliveryId),
    args: [{ deliveryId: delivery.deliveryId, ...(policy ? { policy } : {}), ...(after ? { after } : {}) }],
    parentClosePolicy: ParentClosePolicy.ABANDON,
    typedSearchAttributes: [
      { key: searchAttributes.userId, value: delivery.userId },
      { key: searchAttributes.assistantId, value: delivery.assistantId },
    ],
  });
}

/**
 * After the activity that queued an event and made its first attempt: starts the delivery's workflow for the
 * retries when that attempt failed in a way worth retrying, or when none was made (a result stored by an older
 * worker); an event that attempt settled (delivered, failed for good, dead, cancelled) needs none. Runs that
 * queued their webhook before the first attempt was made inline start the workflow for every event, as they did.
 */
export async function continueWebhookDelivery(queued: QueuedWebhook, policy?: Partial<DeliveryPolicy>): Promise<void> {
  if (!patched('webhook-first-attempt-inline') || queued.first === undefined) {
    await startWebhookDeliveryChild(queued, policy);
  } else if (queued.first.outcome === 'retry') {
    await startWebhookDeliveryChild(queued, policy, { attempts: 1, delayMs: queued.first.delayMs });
  }
}
