import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Activities } from '../../activities/index.ts';
import { searchAttributes, workflowIds } from '../../src/temporal/names.ts';
import { restartConversationTimer } from '../../src/temporal/starters.ts';
import type { ConversationInactivityResult } from '../../src/temporal/shared.ts';
import { activityGate, startStubWorker, type StubWorker } from '../support/workflows.ts';

let lastId = 0;
const TIMEOUT_MS = 600;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A conversation on a stub worker: `message()` stores one as the API does (one signal-with-start). */
async function conversation(stubs: Partial<Activities>) {
  const worker = await startStubWorker(stubs);
  onTestFinished(() => worker.stop());
  const id = ++lastId;
  const uuid = randomUUID();
  const signalledAt: number[] = [];
  const message = async (timeoutMs = TIMEOUT_MS) => {
    signalledAt.push(Date.now());
    await restartConversationTimer(worker.temporal, { id, uuid, userId: 41, assistantId: 7 }, timeoutMs);
  };
  const handle = () => worker.temporal.client.workflow.getHandle(workflowIds.conversation(uuid));
  return { worker, id, message, handle, signalledAt };
}

const names = (worker: StubWorker) => worker.calls.map((entry) => entry.name);

describe('conversationInactivityWorkflow', () => {
  it('ends the conversation once, a timeout after its last message, and queues its webhook (queued by an older worker: a child delivers it)', async () => {
    const deliveryId = 900 + ++lastId;
    let endedAt = 0;
    const { worker, id, message, handle, signalledAt } = await conversation({
      endConversation: () => {
        endedAt = Date.now();
        return Promise.resolve({ outcome: 'ended' as const, webhook: true, evaluate: true });
      },
      evaluateConversation: () => Promise.resolve({ evaluated: true }),
      queueConversationEndedWebhook: () => Promise.resolve({ outcome: 'queued' as const, deliveryId, eventId: 'e', userId: 41, assistantId: 7 }),
      attemptWebhookDelivery: () => Promise.resolve({ outcome: 'delivered' as const }),
    });
    await message();
    await pause(350);
    await message();
    await pause(350);
    await message();
    expect(await handle().result()).toEqual({ periods: 1, deliveries: [deliveryId] } satisfies ConversationInactivityResult);
    // Each message started the period again: the end came a full timeout after the last one, not the first.
    expect(endedAt - signalledAt[2]!).toBeGreaterThanOrEqual(TIMEOUT_MS);
    expect(names(worker).slice(0, 3)).toEqual(['endConversation', 'evaluateConversation', 'queueConversationEndedWebhook']);
    expect(worker.calls.slice(0, 3).map((entry) => entry.input)).toEqual([{ conversationId: id }, { conversationId: id }, { conversationId: id }]);
    const events = (await handle().fetchHistory()).events ?? [];
    expect(events.filter((event) => event.timerFiredEventAttributes)).toHaveLength(1);
    expect(events.filter((event) => event.workflowExecutionSignaledEventAttributes)).toHaveLength(3);
    const described = await handle().describe();
    expect(described.typedSearchAttributes.get(searchAttributes.assistantId)).toBe(7);
    const delivery = worker.temporal.client.workflow.getHandle(workflowIds.webhookDelivery(deliveryId));
    expect(await delivery.result()).toEqual({ status: 'delivered', attempts: 1 });
    expect((await delivery.describe()).parentExecution?.workflowId).toBe(handle().workflowId);
    expect(names(worker)).toEqual(['endConversation', 'evaluateConversation', 'queueConversationEndedWebhook', 'attemptWebhookDelivery']);
  });

  it('starts a child for the webhook only when the first attempt, made by the activity that queued it, asks for a retry', async () => {
    for (const first of [{ outcome: 'delivered' as const }, { outcome: 'retry' as const, delayMs: 100 }]) {
      const deliveryId = 900 + ++lastId;
      const { worker, message, handle } = await conversation({
        endConversation: () => Promise.resolve({ outcome: 'ended' as const, webhook: true, evaluate: false }),
        queueConversationEndedWebhook: () => Promise.resolve({ outcome: 'queued' as const, deliveryId, eventId: 'e', userId: 41, assistantId: 7, first }),
        attemptWebhookDelivery: () => Promise.resolve({ outcome: 'delivered' as const }),
      });
      await message();
      expect(await handle().result()).toEqual({ periods: 1, deliveries: [deliveryId] } satisfies ConversationInactivityResult);
      const delivery = worker.temporal.client.workflow.getHandle(workflowIds.webhookDelivery(deliveryId));
      if (first.outcome === 'delivered') {
        await expect(delivery.describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
        expect(names(worker)).toEqual(['endConversation', 'queueConversationEndedWebhook']);
      } else {
        expect(await delivery.result()).toEqual({ status: 'delivered', attempts: 2 });
        expect(worker.calls.at(-1)).toMatchObject({ name: 'attemptWebhookDelivery', input: { deliveryId, attempt: 2 } });
      }
    }
  });

  it('only marks the conversation ended when its webhook is off; a message after the end starts a new run, and a failed webhook does not fail it', async () => {
    let webhook = false;
    const { worker, message, handle } = await conversation({
      endConversation: () => Promise.resolve({ outcome: 'ended' as const, webhook, evaluate: false }),
      queueConversationEndedWebhook: () => Promise.reject(ApplicationFailure.nonRetryable('the payload could not be built', 'rejected')),
    });
    await message(200);
    const first = await handle().result();
    expect(first).toEqual({ periods: 1, deliveries: [] });
    expect(names(worker)).toEqual(['endConversation']);

    webhook = true;
    await message(200);
    const second = handle();
    expect(await second.result()).toEqual({ periods: 1, deliveries: [] });
    expect(names(worker)).toEqual(['endConversation', 'endConversation', 'queueConversationEndedWebhook']);
    // Two runs under the one id; the list (Temporal's visibility store) may lag the runs a moment.
    const runs = async () => {
      const statuses: string[] = [];
      for await (const run of worker.temporal.client.workflow.list({ query: `WorkflowId = '${second.workflowId}'` })) statuses.push(run.status.name);
      return statuses;
    };
    await expect.poll(runs).toEqual(['COMPLETED', 'COMPLETED']);
  });

  it('waits out another period when a message comes while the conversation is being ended', async () => {
    const gate = activityGate();
    let ends = 0;
    const { worker, message, handle } = await conversation({
      endConversation: async () => {
        ends += 1;
        if (ends === 1) await gate.pass();
        return { outcome: 'ended' as const, webhook: false, evaluate: false };
      },
    });
    await message(200);
    await gate.entered;
    await message(200);
    gate.release();
    expect(await handle().result()).toEqual({ periods: 2, deliveries: [] });
    expect(names(worker)).toEqual(['endConversation', 'endConversation']);
  });

  it('stops when the conversation is gone', async () => {
    const { worker, message, handle } = await conversation({ endConversation: () => Promise.resolve({ outcome: 'gone' as const }) });
    await message(100);
    expect(await handle().result()).toEqual({ periods: 1, deliveries: [] });
    expect(names(worker)).toEqual(['endConversation']);
  });
});
