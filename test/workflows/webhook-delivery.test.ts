import { ApplicationFailure } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Activities } from '../../activities/index.ts';
import { searchAttributes, workflowIds } from '../../src/temporal/names.ts';
import { callSignals, webhookSignals, workflowTypes, type WebhookAttemptOutcome } from '../../src/temporal/shared.ts';
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

  it('started after a first attempt made elsewhere, waits the delay that attempt stored and goes on from the next', async () => {
    const startedAt: number[] = [];
    const worker = await startStubWorker({
      attemptWebhookDelivery: () => {
        startedAt.push(Date.now());
        return Promise.resolve(startedAt.length === 1 ? { outcome: 'retry' as const, delayMs: 10 } : { outcome: 'delivered' as const });
      },
    });
    onTestFinished(() => worker.stop());
    const deliveryId = ++lastDeliveryId;
    const started = Date.now();
    const result = await worker.temporal.client.workflow.execute<typeof webhookDeliveryWorkflow>(workflowTypes.webhookDelivery, {
      taskQueue: worker.temporal.taskQueue, workflowId: workflowIds.webhookDelivery(deliveryId), args: [{ deliveryId, policy, after: { attempts: 1, delayMs: 400 } }],
    });
    expect(result).toEqual({ status: 'delivered', attempts: 3 });
    expect(worker.calls.map((entry) => entry.input)).toEqual([2, 3].map((attempt) => ({ deliveryId, attempt, policy })));
    expect(startedAt[0]! - started).toBeGreaterThanOrEqual(400);
  });

  it('ends an hour-long wait at a retryNow signal and makes the next attempt of the policy at once, numbered as it would have been', async () => {
    const hour = 3_600_000;
    const worker = await startStubWorker({
      attemptWebhookDelivery: ({ attempt }) => Promise.resolve(attempt === 2 ? { outcome: 'retry' as const, delayMs: hour } : { outcome: 'dead' as const }),
    });
    onTestFinished(() => worker.stop());
    const deliveryId = ++lastDeliveryId;
    const started = Date.now();
    const handle = await worker.temporal.client.workflow.start<typeof webhookDeliveryWorkflow>(workflowTypes.webhookDelivery, {
      taskQueue: worker.temporal.taskQueue, workflowId: workflowIds.webhookDelivery(deliveryId), args: [{ deliveryId, policy, after: { attempts: 1, delayMs: hour } }],
    });
    const timers = async (kind: 'timerStartedEventAttributes' | 'timerCanceledEventAttributes') =>
      (await handle.fetchHistory()).events?.filter((event) => event[kind]).length;
    // Each wake-up once its wait is on: the wait after the first attempt (made elsewhere), then the one attempt 2 asked for.
    for (const waits of [1, 2]) {
      await expect.poll(() => timers('timerStartedEventAttributes')).toBe(waits);
      await handle.signal(webhookSignals.retryNow);
    }
    expect(await handle.result()).toEqual({ status: 'dead', attempts: 3 });
    expect(worker.calls.map((entry) => entry.input)).toEqual([2, 3].map((attempt) => ({ deliveryId, attempt, policy })));
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(await timers('timerCanceledEventAttributes')).toBe(2);
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

  /** A call whose post-call webhook is queued with `queued` (its first attempt's outcome, or none from an older worker). */
  async function callWithWebhook(first: WebhookAttemptOutcome | undefined) {
    const deliveryId = ++lastDeliveryId;
    const running = await call({
      ...steps,
      finalizeCall: () => Promise.resolve({ status: 'ended_by_customer' as const, evaluate: true, webhook: true as const }),
      queuePostCallWebhook: () => Promise.resolve({ outcome: 'queued' as const, deliveryId, eventId: 'e', userId: 41, assistantId: 7, ...(first ? { first } : {}) }),
      attemptWebhookDelivery: delivered,
    } satisfies Partial<Activities>);
    await running.handle.signal(callSignals.callAnswered, { at: new Date().toISOString() });
    await running.handle.signal(callSignals.callEnded, { reason: 'customer_hangup', at: new Date().toISOString() });
    expect(await running.handle.result()).toEqual({ status: 'ended_by_customer', reason: 'customer_hangup' });
    return { ...running, deliveryId, delivery: running.worker.temporal.client.workflow.getHandle<typeof webhookDeliveryWorkflow>(workflowIds.webhookDelivery(deliveryId)) };
  }

  it('starts no delivery workflow when the first attempt, made by the activity that queued it, settled the event', async () => {
    for (const outcome of ['delivered', 'failed', 'dead', 'cancelled'] as const) {
      const { worker, delivery } = await callWithWebhook({ outcome });
      expect(names(worker)).toEqual(['prepareCall', 'markAnswered', 'finalizeCall', 'evaluateCall', 'queuePostCallWebhook']);
      await expect(delivery.describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    }
  });

  it('starts the retries as a child that outlives the call when the first attempt asked for one, from the second attempt', async () => {
    const { worker, callId, deliveryId, delivery } = await callWithWebhook({ outcome: 'retry', delayMs: 200 });
    expect(await delivery.result()).toEqual({ status: 'delivered', attempts: 2 });
    expect(worker.calls.find((entry) => entry.name === 'attemptWebhookDelivery')?.input).toMatchObject({ deliveryId, attempt: 2 });
    const described = await delivery.describe();
    expect(described.parentExecution?.workflowId).toBe(workflowIds.call(callId));
    expect(described.typedSearchAttributes.get(searchAttributes.userId)).toBe(41);
  });

  it('is queued after the evaluation, and delivered from its first attempt by a child when an older worker queued it without one', async () => {
    const { worker, callId, delivery } = await callWithWebhook(undefined);
    expect(await delivery.result()).toEqual({ status: 'delivered', attempts: 1 });
    expect(names(worker)).toEqual(['prepareCall', 'markAnswered', 'finalizeCall', 'evaluateCall', 'queuePostCallWebhook', 'attemptWebhookDelivery']);
    expect(worker.calls.find((entry) => entry.name === 'queuePostCallWebhook')?.input).toEqual({ callId });
    expect((await delivery.describe()).parentExecution?.workflowId).toBe(workflowIds.call(callId));
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
