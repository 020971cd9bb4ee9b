import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Activities } from '../../activities/index.ts';
import { searchAttributes, workflowIds } from '../../src/temporal/names.ts';
import type { ConversationInactivityResult, EndedConversation, QuietCheck } from '../../src/temporal/shared.ts';
import { startConversationTimer } from '../../src/temporal/starters.ts';
import { activityGate, startStubWorker, type StubWorker } from '../support/workflows.ts';

let lastId = 0;
const TIMEOUT_MS = 600;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A conversation on a stub worker, its row kept here as the statements keep it (resources/conversations/
 * quiet-timer.ts): `message()` stores one, which starts the timer (one signal-with-start) only when none runs;
 * `endQuietConversation` reads and ends it as the activity does. `ending` is what an end says of the webhook.
 */
async function conversation(stubs: Partial<Activities>, ending: () => EndedConversation = () => ({ outcome: 'ended', webhook: false, evaluate: false })) {
  const id = ++lastId;
  const uuid = randomUUID();
  const row = { lastMessageAt: 0, endedAt: undefined as number | undefined, timer: false, gone: false };
  const endedAt: number[] = [];
  const endQuietConversation = (): Promise<QuietCheck> => {
    if (row.gone) return Promise.resolve({ outcome: 'gone' });
    const remainingMs = row.lastMessageAt + TIMEOUT_MS - Date.now();
    if (remainingMs > 0) return Promise.resolve({ outcome: 'active', remainingMs });
    const already = row.endedAt !== undefined && row.endedAt > row.lastMessageAt;
    row.timer = false;
    row.endedAt ??= Date.now();
    if (already) return Promise.resolve({ outcome: 'already_ended' });
    endedAt.push(Date.now());
    return Promise.resolve(ending());
  };
  const worker = await startStubWorker({ endQuietConversation, ...stubs });
  onTestFinished(() => worker.stop());
  let starts = 0;
  const message = async (timeoutMs = TIMEOUT_MS) => {
    row.lastMessageAt = Date.now();
    row.endedAt = undefined;
    if (row.timer) return;
    row.timer = true;
    starts += 1;
    await startConversationTimer(worker.temporal, { id, uuid, userId: 41, assistantId: 7 }, timeoutMs);
  };
  const handle = () => worker.temporal.client.workflow.getHandle(workflowIds.conversation(uuid));
  const signals = async () => ((await handle().fetchHistory()).events ?? []).filter((event) => event.workflowExecutionSignaledEventAttributes).length;
  return { worker, id, row, message, handle, signals, endedAt, starts: () => starts };
}

const names = (worker: StubWorker) => worker.calls.map((entry) => entry.name);

describe('conversationInactivityWorkflow', () => {
  it('ends the conversation once, a timeout after its last message, and queues its webhook; messages while its timer runs cost Temporal nothing', async () => {
    const deliveryId = 900 + ++lastId;
    const { worker, id, row, message, handle, signals, endedAt, starts } = await conversation({
      evaluateConversation: () => Promise.resolve({ evaluated: true }),
      queueConversationEndedWebhook: () => Promise.resolve({ outcome: 'queued' as const, deliveryId, eventId: 'e', userId: 41, assistantId: 7 }),
      attemptWebhookDelivery: () => Promise.resolve({ outcome: 'delivered' as const }),
    }, () => ({ outcome: 'ended', webhook: true, evaluate: true }));
    await message();
    await pause(350);
    await message();
    await pause(350);
    await message();
    expect(await handle().result()).toEqual({ periods: 1, deliveries: [deliveryId] } satisfies ConversationInactivityResult);
    // One start, for the first message; the end came a full timeout after the last one, not the first.
    expect(starts()).toBe(1);
    expect(await signals()).toBe(1);
    expect(endedAt).toHaveLength(1);
    expect(endedAt[0]! - row.lastMessageAt).toBeGreaterThanOrEqual(TIMEOUT_MS);
    // Each wake that found a later message slept until that one's period had passed (how many there were depends
    // on how soon the loaded worker took the run); the last wake ended the conversation.
    const wakes = names(worker).findIndex((name) => name !== 'endQuietConversation');
    expect(wakes).toBeGreaterThanOrEqual(1);
    expect(names(worker).slice(wakes, wakes + 2)).toEqual(['evaluateConversation', 'queueConversationEndedWebhook']);
    expect(worker.calls.slice(0, wakes + 2).map((entry) => entry.input)).toEqual(Array(wakes + 2).fill({ conversationId: id }));
    const described = await handle().describe();
    expect(described.typedSearchAttributes.get(searchAttributes.assistantId)).toBe(7);
    const delivery = worker.temporal.client.workflow.getHandle(workflowIds.webhookDelivery(deliveryId));
    expect(await delivery.result()).toEqual({ status: 'delivered', attempts: 1 });
    expect((await delivery.describe()).parentExecution?.workflowId).toBe(handle().workflowId);
  });

  it('starts a child for the webhook only when the first attempt, made by the activity that queued it, asks for a retry', async () => {
    for (const first of [{ outcome: 'delivered' as const }, { outcome: 'retry' as const, delayMs: 100 }]) {
      const deliveryId = 900 + ++lastId;
      const { worker, message, handle } = await conversation({
        queueConversationEndedWebhook: () => Promise.resolve({ outcome: 'queued' as const, deliveryId, eventId: 'e', userId: 41, assistantId: 7, first }),
        attemptWebhookDelivery: () => Promise.resolve({ outcome: 'delivered' as const }),
      }, () => ({ outcome: 'ended', webhook: true, evaluate: false }));
      await message();
      expect(await handle().result()).toEqual({ periods: 1, deliveries: [deliveryId] } satisfies ConversationInactivityResult);
      const delivery = worker.temporal.client.workflow.getHandle(workflowIds.webhookDelivery(deliveryId));
      if (first.outcome === 'delivered') {
        await expect(delivery.describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
        expect(names(worker)).toEqual(['endQuietConversation', 'queueConversationEndedWebhook']);
      } else {
        expect(await delivery.result()).toEqual({ status: 'delivered', attempts: 2 });
        expect(worker.calls.at(-1)).toMatchObject({ name: 'attemptWebhookDelivery', input: { deliveryId, attempt: 2 } });
      }
    }
  });

  it('only marks the conversation ended when its webhook is off; a message after the end starts a new run, and a failed webhook does not fail it', async () => {
    let webhook = false;
    const { worker, message, handle } = await conversation({
      queueConversationEndedWebhook: () => Promise.reject(ApplicationFailure.nonRetryable('the payload could not be built', 'rejected')),
    }, () => ({ outcome: 'ended', webhook, evaluate: false }));
    await message();
    expect(await handle().result()).toEqual({ periods: 1, deliveries: [] });
    expect(names(worker)).toEqual(['endQuietConversation']);

    webhook = true;
    await message();
    const second = handle();
    expect(await second.result()).toEqual({ periods: 1, deliveries: [] });
    expect(names(worker)).toEqual(['endQuietConversation', 'endQuietConversation', 'queueConversationEndedWebhook']);
    // Two runs under the one id; the list (Temporal's visibility store) may lag the runs a moment.
    const runs = async () => {
      const statuses: string[] = [];
      for await (const run of worker.temporal.client.workflow.list({ query: `WorkflowId = '${second.workflowId}'` })) statuses.push(run.status.name);
      return statuses;
    };
    await expect.poll(runs).toEqual(['COMPLETED', 'COMPLETED']);
  });

  it('waits out another period when a message comes while the conversation is being ended: it found no timer, and signalled this run', async () => {
    const gate = activityGate();
    let evaluations = 0;
    const { worker, message, handle, signals, endedAt } = await conversation({
      evaluateConversation: async () => {
        evaluations += 1;
        if (evaluations === 1) await gate.pass();
        return { evaluated: true };
      },
      queueConversationEndedWebhook: () => Promise.resolve({ outcome: 'skipped' as const, reason: 'reopened' as const }),
    }, () => ({ outcome: 'ended', webhook: true, evaluate: true }));
    await message();
    await gate.entered;
    await message();
    gate.release();
    expect(await handle().result()).toEqual({ periods: 2, deliveries: [] });
    expect(await signals()).toBe(2);
    expect(endedAt).toHaveLength(2);
    expect(names(worker)).toEqual([
      'endQuietConversation', 'evaluateConversation', 'queueConversationEndedWebhook', 'endQuietConversation', 'evaluateConversation', 'queueConversationEndedWebhook',
    ]);
  });

  it('does not end a conversation twice when a signal came before the end it had already made', async () => {
    const { worker, id, row, handle } = await conversation({});
    // A start for a timer that already ran (a stale claim): the run ends the conversation, then sleeps once more.
    row.timer = true;
    const uuid = handle().workflowId.replace(/^conversation-/, '');
    const start = () => startConversationTimer(worker.temporal, { id, uuid, userId: 41, assistantId: 7 }, TIMEOUT_MS);
    await start();
    // Messages while the run waits for its start (it starts a timeout later): it sleeps until the last one's timeout.
    row.lastMessageAt = Date.now() + 2 * TIMEOUT_MS;
    await expect.poll(async () => ((await handle().fetchHistory()).events ?? []).some((event) => event.timerStartedEventAttributes), { timeout: 5_000 }).toBe(true);
    await start();
    expect(await handle().result()).toEqual({ periods: 1, deliveries: [] });
    expect(names(worker)).toEqual(['endQuietConversation', 'endQuietConversation', 'endQuietConversation']);
  });

  it('stops when the conversation is gone', async () => {
    const { worker, row, message, handle } = await conversation({});
    await message(100);
    row.gone = true;
    expect(await handle().result()).toEqual({ periods: 0, deliveries: [] });
    expect(names(worker)).toEqual(['endQuietConversation']);
  });
});
