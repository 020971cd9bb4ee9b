import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import { createLogger } from '../../src/logger.ts';
import { workflowIds } from '../../src/temporal/names.ts';
import { startWorker } from '../../src/temporal/worker.ts';
import type { QueuedWebhook } from '../../src/temporal/shared.ts';
import { startWebhookDelivery } from '../../src/temporal/starters.ts';
import { recordWebhookEvent, WAKE_BATCH, wakeWaitingDeliveries } from '../../src/webhooks/deliveries.ts';
import type { DeliveryPolicy } from '../../src/webhooks/policy.ts';
import type { webhookDeliveryWorkflow } from '../../workflows/webhook-delivery.ts';
import type { FakeLlmServer } from '../fakes/llm-server.ts';
import type { WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { insertCall } from '../support/calls.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import type { TestUser } from '../support/users.ts';
import { ownerWithWebhook, startWebhookPlatform, webhookReceiver as receiver } from '../support/webhooks.ts';

// An hour before the second attempt: a delivery that arrives within seconds was woken.
const hourly: DeliveryPolicy = { delaysMs: [3_600_000, 3_600_000], maxRetryAfterMs: 3_600_000 };
const HOUR_MS = 3_600_000;
const idempotencyKeys = (hooks: WebhookReceiver) => hooks.received.map((hook) => hook.headers['idempotency-key']);

describe('deliveries waiting for a receiver that is back', () => {
  let llm: FakeLlmServer;
  let platform: TestPlatform;

  beforeAll(async () => {
    ({ llm, platform } = await startWebhookPlatform());
  });
  afterAll(async () => {
    await platform.close();
    await llm.close();
  });

  const knex = () => platform.database.knex;
  const activities = () => createActivities({
    knex: knex(), logger: createLogger(platform.config), config: platform.config, providers: platform.providers, temporal: platform.temporal,
  });
  const deliveryWorkflow = (deliveryId: number) => platform.temporal.client.workflow.getHandle<typeof webhookDeliveryWorkflow>(workflowIds.webhookDelivery(deliveryId));

  /**
   * A finished call's post-call webhook, queued as callLifecycle queues it: the activity makes the first attempt,
   * and a delivery workflow is started for the retries when that attempt asks for them.
   */
  async function endCall(owner: TestUser, assistantId: number, policy: DeliveryPolicy = hourly): Promise<QueuedWebhook> {
    const queued = await queueFirstAttempt(owner, assistantId, policy);
    if (queued.first?.outcome === 'retry') await startWebhookDelivery(platform.temporal, queued, policy, { attempts: 1, delayMs: queued.first.delayMs });
    return queued;
  }

  /** The first half of `endCall`: the event queued and its first attempt made, with no workflow started yet. */
  async function queueFirstAttempt(owner: TestUser, assistantId: number, policy: DeliveryPolicy): Promise<QueuedWebhook> {
    const callId = await insertCall(knex(), owner.id, { assistant_id: assistantId, type: 'outbound', status: 'ended_by_customer', duration: 42, transcript: 'AI: Hi.' });
    const queued = await activities().queuePostCallWebhook({ callId, policy });
    if (queued.outcome !== 'queued') throw new Error(`not queued: ${queued.reason}`);
    return queued;
  }

  it('delivers the waiting events within seconds, once each, when a new event reaches the receiver again', async () => {
    const hooks = await receiver();
    hooks.script({ status: 503 }, { status: 503 }, { status: 503 });
    const { owner, assistant } = await ownerWithWebhook(platform, 'enable-webhook', hooks.url);
    const waiting = [];
    for (let index = 0; index < 3; index++) waiting.push(await endCall(owner, assistant.id));
    expect(waiting.map((queued) => queued.first)).toEqual(Array(3).fill({ outcome: 'retry', delayMs: HOUR_MS }));

    // The receiver is back: the next event's first attempt, made by the activity that queued it, is delivered.
    const recovered = Date.now();
    const fresh = await endCall(owner, assistant.id);
    expect(fresh.first).toEqual({ outcome: 'delivered' });
    for (const queued of waiting) expect(await deliveryWorkflow(queued.deliveryId).result()).toEqual({ status: 'delivered', attempts: 2 });
    expect(Date.now() - recovered).toBeLessThan(15_000);
    const keys = idempotencyKeys(hooks);
    expect(keys).toHaveLength(3 + 1 + 3);
    for (const { eventId } of waiting) expect(keys.filter((key) => key === eventId)).toHaveLength(2);
    const rows = await knex()('webhook_deliveries').whereIn('id', waiting.map((queued) => queued.deliveryId));
    expect(rows).toMatchObject(Array(3).fill({ status: 'delivered', attempts: 2, nextAttemptAt: null, wokenAt: expect.any(Date) }));
  });

  it('wakes them from an attempt of a delivery workflow too, and ends one woken after its webhook was turned off as cancelled', async () => {
    const hooks = await receiver();
    hooks.script({ status: 503 }, { status: 503 }, { status: 503 });
    const { owner, assistant } = await ownerWithWebhook(platform, 'enable-webhook', hooks.url);
    // Another assistant of the account posts to the same URL; its webhook is turned off while its event waits.
    const other = await createTestAssistant(platform, owner);
    await platform.request('POST', '/user/assistants/enable-webhook', { token: owner.token, body: { assistant_id: other.id, webhook_url: hooks.url } });
    const waiting = await endCall(owner, assistant.id);
    const turnedOff = await endCall(owner, other.id);
    await platform.request('POST', '/user/assistants/disable-webhook', { token: owner.token, body: { assistant_id: other.id } });
    // This one's workflow retries after a second, when the receiver is back.
    const quick = await endCall(owner, assistant.id, { delaysMs: [1000], maxRetryAfterMs: 1000 });

    expect(await deliveryWorkflow(quick.deliveryId).result()).toEqual({ status: 'delivered', attempts: 2 });
    expect(await deliveryWorkflow(waiting.deliveryId).result()).toEqual({ status: 'delivered', attempts: 2 });
    expect(await deliveryWorkflow(turnedOff.deliveryId).result()).toEqual({ status: 'cancelled', attempts: 2 });
    expect(idempotencyKeys(hooks).filter((key) => key === waiting.eventId)).toHaveLength(2);
    expect(idempotencyKeys(hooks).filter((key) => key === turnedOff.eventId)).toHaveLength(1);
  });

  it('gives a woken delivery whose workflow had not started yet its own wait back, so that a later success wakes it', async () => {
    const hooks = await receiver();
    hooks.script({ status: 503 });
    const { owner, assistant } = await ownerWithWebhook(platform, 'enable-webhook', hooks.url);
    // Its first attempt failed, and the workflow for its retries is not started yet: its caller's next step.
    const unstarted = await queueFirstAttempt(owner, assistant.id, hourly);
    const before = await knex()('webhook_deliveries').where({ id: unstarted.deliveryId }).first();
    expect(before).toMatchObject({ status: 'pending', wokenAt: null, nextAttemptAt: expect.any(Date) });

    expect((await endCall(owner, assistant.id)).first).toEqual({ outcome: 'delivered' });
    expect(await knex()('webhook_deliveries').where({ id: unstarted.deliveryId }).first()).toMatchObject({ status: 'pending', wokenAt: null, nextAttemptAt: before.nextAttemptAt });

    // Started, it waits its hour; the next success wakes it.
    await startWebhookDelivery(platform.temporal, unstarted, hourly, { attempts: 1, delayMs: HOUR_MS });
    expect((await endCall(owner, assistant.id)).first).toEqual({ outcome: 'delivered' });
    expect(await deliveryWorkflow(unstarted.deliveryId).result()).toEqual({ status: 'delivered', attempts: 2 });
    expect(idempotencyKeys(hooks).filter((key) => key === unstarted.eventId)).toHaveLength(2);
  });

  it('wakes a batch of the account\'s deliveries to that URL at a time, oldest first, each once, and none answered 429 or being attempted', async () => {
    const url = 'https://crm.example.com/hooks';
    const { owner, assistant } = await ownerWithWebhook(platform, 'enable-webhook', url);
    const [userId, assistantId] = [owner.id, assistant.id];
    const now = new Date();
    const later = new Date(now.getTime() + HOUR_MS);
    const record = async (url: string, state: { nextAttemptAt: Date | null; lastError?: string }, forUser = userId) => {
      const { deliveryId } = await recordWebhookEvent(knex(), { userId: forUser, assistantId, kind: 'call.ended', url, payload: {} });
      await knex()('webhook_deliveries').where({ id: deliveryId }).update({ attempts: 1, lastError: 'HTTP 503', ...state });
      return deliveryId;
    };
    const waiting = [];
    for (let index = 0; index < WAKE_BATCH + 5; index++) waiting.push(await record(url, { nextAttemptAt: later }));
    const stranger = (await ownerWithWebhook(platform, 'enable-webhook', url)).owner;
    const untouched = [
      await record('https://crm.example.com/other', { nextAttemptAt: later }),
      await record(url, { nextAttemptAt: later }, stranger.id),
      await record(url, { nextAttemptAt: new Date(now.getTime() - 1000) }),
      await record(url, { nextAttemptAt: null }),
      await record(url, { nextAttemptAt: later, lastError: 'HTTP 429' }),
    ];

    const endpoint = { userId, url };
    const wake = async (at: Date) => (await wakeWaitingDeliveries(knex(), endpoint, at)).map((woken) => woken.id);
    const first = await wake(now);
    expect(first).toEqual(waiting.slice(0, WAKE_BATCH));
    expect(await wake(now)).toEqual([]);
    // Ten arrive, two fail again (not to be woken twice): ten places are free, and five are left to wake.
    await knex()('webhook_deliveries').whereIn('id', first.slice(0, 10)).update({ status: 'delivered', nextAttemptAt: null });
    await knex()('webhook_deliveries').whereIn('id', first.slice(10, 12)).update({ nextAttemptAt: later });
    expect(await wake(now)).toEqual(waiting.slice(WAKE_BATCH));
    // A minute on, the woken ones still pending no longer hold their places; nothing is left to wake.
    expect(await wake(new Date(now.getTime() + 61_000))).toEqual([]);

    const woken = await knex()('webhook_deliveries').whereIn('id', waiting.slice(WAKE_BATCH));
    expect(woken).toMatchObject(Array(5).fill({ status: 'pending', nextAttemptAt: now, wokenAt: now }));
    expect(await knex()('webhook_deliveries').whereIn('id', untouched).whereNotNull('wokenAt')).toEqual([]);
  });
});

describe('a webhook whose receiver is down while the worker restarts', () => {
  it('is delivered once the receiver is back, by the next worker, from the durable wait the first one left', async () => {
    const platform = await startTestPlatform({ env: { FETCH_ALLOW_HOSTS: '127.0.0.1' } });
    onTestFinished(() => platform.close());
    const knex = platform.database.knex;
    const logger = createLogger(platform.config);
    const worker = () => startWorker({
      config: platform.config,
      address: platform.config.temporal.address ?? '',
      activities: createActivities({ knex, logger, config: platform.config, providers: platform.providers, temporal: platform.temporal }),
      logger,
      workflowBundlePath: inject('workflowBundlePath'),
    });
    const hooks = await receiver();
    const { owner, assistant } = await ownerWithWebhook(platform, 'enable-webhook', hooks.url);

    hooks.down = true;
    const first = await worker();
    const { deliveryId, eventId } = await recordWebhookEvent(knex, { userId: owner.id, assistantId: assistant.id, kind: 'call.ended', url: hooks.url, payload: { n: 1 } });
    await startWebhookDelivery(platform.temporal, { deliveryId, userId: owner.id, assistantId: assistant.id }, { delaysMs: [100, 2000, 100], maxRetryAfterMs: 1000 });
    // Two attempts fail on the dropped connection; the delivery then waits 2 s on a timer, and its worker goes.
    await expect.poll(async () => (await knex('webhook_deliveries').where({ id: deliveryId }).first()).attempts, { timeout: 10_000 }).toBe(2);
    await first.stop();
    hooks.down = false;
    const second = await worker();
    onTestFinished(() => second.stop());

    const handle = platform.temporal.client.workflow.getHandle<typeof webhookDeliveryWorkflow>(workflowIds.webhookDelivery(deliveryId));
    expect(await handle.result()).toEqual({ status: 'delivered', attempts: 3 });
    expect(idempotencyKeys(hooks)).toEqual([eventId]);
    const attempts = await knex('webhook_delivery_attempts').where({ deliveryId }).orderBy('attempt');
    expect(attempts.map((attempt: { statusCode: number | null; error: string | null }) => [attempt.statusCode, attempt.error !== null])).toEqual([[null, true], [null, true], [200, false]]);
  });
});
