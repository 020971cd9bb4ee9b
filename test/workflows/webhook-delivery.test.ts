import { ApplicationFailure } from '@temporalio/activity';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Activities } from '../../activities/index.ts';
import { searchAttributes, workflowIds } from '../../src/temporal/names.ts';
import { callSignals, workflowTypes, type WebhookAttemptOutcome } from '../../src/temporal/shared.ts';
import type { webhookDeliveryWorkflow } from '../../workflows/webhook-delivery.ts';
import { call, names, steps } from '../support/call-lifecycle.ts';
import { startStubWorker } from '../support/workflows.ts';

let lastDeliveryId = 0;
const policy = { delaysMs: [300, 300, 300], maxRetryAfterMs: 1000 };

/** A delivery on a worker whose attempts answer `outcomes` in turn, each attempt's start time kept. */
async function deliver(outcomes: WebhookAttemptOutcome[]) {
  const startedAt: number[] = [];
  const worker = await startStubWorker({
    attemptWebhookDelivery: () => {
      startedAt.push(Date.now());
      return Promise.resolve(outcomes[startedAt.length - 1] ?? { outcome: 'delivered' as const });
    },
  });
  onTestFinished(() => worker.stop());
  const deliveryId = ++lastDeliveryId;
  const handle = await worker.temporal.client.workflow.start<typeof webhookDeliveryWorkflow>(workflowTypes.webhookDelivery, {
    taskQueue: worker.temporal.taskQueue,
    workflowId: workflowIds.webhookDelivery(deliveryId),
    args: [{ deliveryId, policy }],
  });
  return { worker, deliveryId, handle, startedAt };
}

describe('webhookDeliveryWorkflow', () => {
  it('tries again after each wait its attempt asks for, on durable timers, until an attempt delivers', async () => {
    const { worker, deliveryId, handle, startedAt } = await deliver([{ outcome: 'retry', delayMs: 400 }, { outcome: 'retry', delayMs: 200 }, { outcome: 'delivered' }]);
    expect(await handle.result()).toEqual({ status: 'delivered', attempts: 3 });
    expect(worker.calls.map((entry) => entry.input)).toEqual([1, 2, 3].map((attempt) => ({ deliveryId, attempt, policy })));
    expect(startedAt[1]! - startedAt[0]!).toBeGreaterThanOrEqual(400);
    expect(startedAt[2]! - startedAt[1]!).toBeGreaterThanOrEqual(200);
    const history = await handle.fetchHistory();
    expect(history.events?.filter((event) => event.timerStartedEventAttributes)).toHaveLength(2);
  });

  it('ends as its last attempt says: dead-lettered, failed for good, or cancelled when the webhook was turned off', async () => {
    for (const outcome of ['dead', 'failed', 'cancelled'] as const) {
      const { handle } = await deliver([{ outcome: 'retry', delayMs: 10 }, { outcome }]);
      expect(await handle.result()).toEqual({ status: outcome, attempts: 2 });
    }
  });

  it('is retried as an activity when the database fails, without counting an attempt', async () => {
    let tries = 0;
    const worker = await startStubWorker({
      attemptWebhookDelivery: () => {
        tries += 1;
        if (tries === 1) throw new Error('connection terminated');
        return Promise.resolve({ outcome: 'delivered' as const });
      },
    });
    onTestFinished(() => worker.stop());
    const deliveryId = ++lastDeliveryId;
    const result = await worker.temporal.client.workflow.execute<typeof webhookDeliveryWorkflow>(workflowTypes.webhookDelivery, {
      taskQueue: worker.temporal.taskQueue, workflowId: workflowIds.webhookDelivery(deliveryId), args: [{ deliveryId, policy }],
    });
    expect(result).toEqual({ status: 'delivered', attempts: 1 });
    expect(worker.calls.map((entry) => [entry.input, entry.attempt])).toEqual([[{ deliveryId, attempt: 1, policy }, 1], [{ deliveryId, attempt: 1, policy }, 2]]);
  });
});

describe('the post-call webhook in callLifecycleWorkflow', () => {
  const delivered = () => Promise.resolve({ outcome: 'delivered' as const });

  it('is queued after the evaluation and delivered by a child that outlives the call', async () => {
    const deliveryId = ++lastDeliveryId;
    const { worker, callId, handle } = await call({
      ...steps,
      finalizeCall: () => Promise.resolve({ status: 'ended_by_customer' as const, evaluate: true, webhook: true as const }),
      queuePostCallWebhook: () => Promise.resolve({ outcome: 'queued' as const, deliveryId, eventId: 'e', userId: 41, assistantId: 7 }),
      attemptWebhookDelivery: delivered,
    } satisfies Partial<Activities>);
    await handle.signal(callSignals.callAnswered, { at: new Date().toISOString() });
    await handle.signal(callSignals.callEnded, { reason: 'customer_hangup', at: new Date().toISOString() });
    expect(await handle.result()).toEqual({ status: 'ended_by_customer', reason: 'customer_hangup' });

    const delivery = worker.temporal.client.workflow.getHandle<typeof webhookDeliveryWorkflow>(workflowIds.webhookDelivery(deliveryId));
    expect(await delivery.result()).toEqual({ status: 'delivered', attempts: 1 });
    expect(names(worker)).toEqual(['prepareCall', 'markAnswered', 'finalizeCall', 'evaluateCall', 'queuePostCallWebhook', 'attemptWebhookDelivery']);
    expect(worker.calls.find((entry) => entry.name === 'queuePostCallWebhook')?.input).toEqual({ callId });
    const described = await delivery.describe();
    expect(described.parentExecution?.workflowId).toBe(workflowIds.call(callId));
    expect(described.typedSearchAttributes.get(searchAttributes.userId)).toBe(41);
  });

  it('is not queued when the assistant has no webhook on, and a webhook that cannot be queued does not fail the call', async () => {
    const plain = await call(steps);
    await plain.handle.signal(callSignals.callAnswered, { at: new Date().toISOString() });
    await plain.handle.signal(callSignals.callEnded, { reason: 'customer_hangup', at: new Date().toISOString() });
    await plain.handle.result();
    expect(names(plain.worker)).not.toContain('queuePostCallWebhook');

    const broken = await call({
      ...steps,
      finalizeCall: () => Promise.resolve({ status: 'ended_by_customer' as const, evaluate: false, webhook: true as const }),
      queuePostCallWebhook: () => Promise.reject(ApplicationFailure.nonRetryable('the payload could not be built', 'rejected')),
    });
    await broken.handle.signal(callSignals.callAnswered, { at: new Date().toISOString() });
    await broken.handle.signal(callSignals.callEnded, { reason: 'customer_hangup', at: new Date().toISOString() });
    expect(await broken.handle.result()).toEqual({ status: 'ended_by_customer', reason: 'customer_hangup' });
  });
});
