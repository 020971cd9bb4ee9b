import { WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookDelivery } from '../../src/temporal/starters.ts';
import type { FakeLlmServer } from '../fakes/llm-server.ts';
import { createTestAssistant } from '../support/assistants.ts';
import type { TestPlatform } from '../support/platform.ts';
import { createTestUser } from '../support/users.ts';
import { postCallWebhooks, QUICK_RETRIES as quick, startWebhookPlatform, webhookReceiver as receiver } from '../support/webhooks.ts';

// How webhooks are delivered: the first attempt in the activity that queues the event, retries in the delivery
// workflow, crashes, dead letters and redelivery, private addresses, turning a webhook off, and the delivery
// log. What a webhook carries is in webhooks-payload.test.ts.

describe('webhooks, delivered by the real worker to a local receiver', () => {
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
  const { ownerWithWebhook, send, deliveries, deliveryWorkflow, activities, endedCall } = postCallWebhooks(() => ({ llm, platform }));

  it('makes the first attempt in the activity that queues the event, and leaves a 500 to the delivery workflow, which honours a 429\'s Retry-After', async () => {
    const hooks = await receiver();
    hooks.script({ status: 500, body: 'Internal error' }, { status: 429, headers: { 'retry-after': '1' } });
    const { owner, callId } = await endedCall(hooks.url);
    const queued = await activities().queuePostCallWebhook({ callId, policy: quick });
    expect(queued).toMatchObject({ outcome: 'queued', first: { outcome: 'retry', delayMs: expect.any(Number) } });
    if (queued.outcome !== 'queued' || queued.first?.outcome !== 'retry') throw new Error('the first attempt asks for a retry');
    expect(queued.first.delayMs).toBeLessThanOrEqual(100);
    expect(hooks.received).toHaveLength(1);
    await expect(deliveryWorkflow(queued.deliveryId).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    expect((await knex()('calls').where({ id: callId }).first()).webhookResponse).toEqual({ status_code: 500, body: 'Internal error' });

    // What the call's workflow does with that answer (continueWebhookDelivery), as the bench does it.
    await startWebhookDelivery(platform.temporal, queued, quick, { attempts: 1, delayMs: queued.first.delayMs });
    expect(await deliveryWorkflow(queued.deliveryId).result()).toEqual({ status: 'delivered', attempts: 3 });
    const received = await hooks.arrived(3);
    expect(received.map((hook) => hook.headers['idempotency-key'])).toEqual(Array(3).fill(queued.eventId));
    expect(received[2]!.at - received[1]!.at).toBeGreaterThanOrEqual(1000);
    const [logged] = (await deliveries(owner, `?call_id=${callId}`)).data;
    expect(logged).toMatchObject({ id: queued.deliveryId, status: 'delivered', attempts_count: 3, last_error: null, next_attempt_at: null });
    expect(logged.attempts.map((attempt: { attempt: number; status_code: number }) => [attempt.attempt, attempt.status_code])).toEqual([[1, 500], [2, 429], [3, 200]]);
    expect(logged.attempts[0]).toMatchObject({ response_excerpt: 'Internal error', error: null, latency_ms: expect.any(Number) });
    expect((await knex()('calls').where({ id: callId }).first()).webhookResponse).toEqual({ ok: true });
  });

  it('takes a 400 to the first attempt as final: the delivery fails, with no workflow', async () => {
    const hooks = await receiver();
    hooks.script({ status: 400, body: 'bad' });
    const { owner, callId } = await endedCall(hooks.url);
    const queued = await activities().queuePostCallWebhook({ callId });
    expect(queued).toMatchObject({ outcome: 'queued', first: { outcome: 'failed' } });
    if (queued.outcome !== 'queued') throw new Error('queued');
    await expect(deliveryWorkflow(queued.deliveryId).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    expect((await deliveries(owner, '?status=failed')).data).toMatchObject([{ id: queued.deliveryId, attempts_count: 1, last_error: 'HTTP 400', attempts: [{ status_code: 400 }] }]);
  });

  it('queues an event once when its activity runs again after a crash, and attempts it again only when no attempt was stored', async () => {
    const hooks = await receiver();
    // The worker dies during the first attempt: the event is stored, its attempt is not.
    const dying = await endedCall(hooks.url);
    const crashed = activities({ fetch: () => Promise.reject(new Error('the worker died')) }).queuePostCallWebhook({ callId: dying.callId });
    await expect(crashed).rejects.toThrow('the worker died');
    expect(await knex()('webhook_deliveries').where({ callId: dying.callId })).toMatchObject([{ status: 'pending', attempts: 0 }]);
    const retried = await activities().queuePostCallWebhook({ callId: dying.callId });
    expect(retried).toMatchObject({ outcome: 'queued', first: { outcome: 'delivered' } });
    expect(await activities().queuePostCallWebhook({ callId: dying.callId })).toEqual(retried);
    expect(await knex()('webhook_deliveries').where({ callId: dying.callId })).toMatchObject([{ status: 'delivered', attempts: 1 }]);
    expect(hooks.received).toHaveLength(1);

    // The worker dies after a first attempt that asks for a retry was stored, before the workflow started: the
    // activity's retry makes no second attempt, and answers what is left of the wait so the retries start.
    hooks.script({ status: 503 });
    const failing = await endedCall(hooks.url);
    const first = await activities().queuePostCallWebhook({ callId: failing.callId, policy: { delaysMs: [60_000] } });
    const again = await activities().queuePostCallWebhook({ callId: failing.callId, policy: { delaysMs: [60_000] } });
    expect(first).toMatchObject({ outcome: 'queued', first: { outcome: 'retry' } });
    expect(again).toMatchObject({ outcome: 'queued', deliveryId: (first as { deliveryId: number }).deliveryId, first: { outcome: 'retry', delayMs: expect.any(Number) } });
    const waits = [first, again].map((queued) => (queued as { first: { delayMs: number } }).first.delayMs);
    expect(waits[1]).toBeLessThanOrEqual(waits[0]!);
    expect(waits[1]).toBeGreaterThan(50_000);
    expect(hooks.received).toHaveLength(2);
    expect(await knex()('webhook_delivery_attempts').where({ deliveryId: (first as { deliveryId: number }).deliveryId })).toHaveLength(1);
  });

  it('retries on 500 and on 429 after its Retry-After, with the same event id each time, and logs every attempt', async () => {
    const hooks = await receiver();
    hooks.script({ status: 500, body: 'Internal error' }, { status: 429, headers: { 'retry-after': '1' } });
    const { owner, assistant } = await ownerWithWebhook(hooks.url);
    const { deliveryId, eventId, handle } = await send(owner, assistant.id, hooks.url);
    expect(await handle.result()).toEqual({ status: 'delivered', attempts: 3 });
    const received = await hooks.arrived(3);
    expect(received.map((hook) => hook.headers['idempotency-key'])).toEqual([eventId, eventId, eventId]);
    expect(received[2]!.at - received[1]!.at).toBeGreaterThanOrEqual(1000);
    const [logged] = (await deliveries(owner)).data;
    expect(logged).toMatchObject({ id: deliveryId, status: 'delivered', attempts_count: 3, last_error: null, next_attempt_at: null });
    expect(logged.attempts.map((attempt: { status_code: number }) => attempt.status_code)).toEqual([500, 429, 200]);
    expect(logged.attempts[0].response_excerpt).toBe('Internal error');
  });

  it('does not retry a 400, dead-letters after the last attempt, and redelivers the same event under a new delivery', async () => {
    const hooks = await receiver();
    hooks.script({ status: 400, body: 'bad' }, { status: 503 }, { status: 503 }, { status: 503 });
    const { owner, assistant } = await ownerWithWebhook(hooks.url);
    const refused = await send(owner, assistant.id, hooks.url);
    expect(await refused.handle.result()).toEqual({ status: 'failed', attempts: 1 });
    const dead = await send(owner, assistant.id, hooks.url);
    expect(await dead.handle.result()).toEqual({ status: 'dead', attempts: 3 });
    expect(hooks.received).toHaveLength(4);
    expect((await deliveries(owner, '?status=dead')).data).toMatchObject([{ id: dead.deliveryId, attempts_count: 3, last_error: 'HTTP 503' }]);

    const redelivered = await platform.request('POST', `/user/webhook-deliveries/${dead.deliveryId}/redeliver`, { token: owner.token });
    expect(redelivered.status).toBe(200);
    expect(redelivered.body).toMatchObject({ message: 'Webhook redelivery queued', data: { event_id: dead.eventId, redelivery_of: dead.deliveryId, status: 'pending', attempts: [] } });
    const again = await hooks.arrived(5);
    expect(again[4]!.headers['idempotency-key']).toBe(dead.eventId);
    expect(again[4]!.body).toBe(again[3]!.body);
    await expect.poll(async () => (await deliveries(owner, '?status=delivered')).data.map((entry: { id: number }) => entry.id)).toEqual([redelivered.body.data.id]);
    // The dead delivery keeps its own log.
    expect((await deliveries(owner, '?status=dead')).total).toBe(1);

    const stranger = await createTestUser(knex());
    const foreign = await platform.request('POST', `/user/webhook-deliveries/${dead.deliveryId}/redeliver`, { token: stranger.token });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ message: 'Webhook delivery not found' });
    expect((await deliveries(stranger)).total).toBe(0);
  });

  it('refuses a private address through the guarded client, for good and with the reason logged', async () => {
    const { owner, assistant } = await ownerWithWebhook('https://crm.example.com/hooks');
    const { handle } = await send(owner, assistant.id, 'http://169.254.169.254/latest/meta-data');
    expect(await handle.result()).toEqual({ status: 'failed', attempts: 1 });
    const [logged] = (await deliveries(owner)).data;
    expect(logged.attempts).toMatchObject([{ status_code: null, error: expect.stringContaining('private or reserved address') }]);
  });

  it('stops the attempts still to come once the webhook is turned off, and redelivers neither a delivery still pending nor one whose webhook is off', async () => {
    const hooks = await receiver();
    hooks.script({ status: 500 });
    const { owner, assistant } = await ownerWithWebhook(hooks.url);
    const { deliveryId, handle } = await send(owner, assistant.id, hooks.url, { delaysMs: [1500], maxRetryAfterMs: 5000 });
    await hooks.arrived(1);
    const early = await platform.request('POST', `/user/webhook-deliveries/${deliveryId}/redeliver`, { token: owner.token });
    expect(early.status).toBe(409);
    const disabled = await platform.request('POST', '/user/assistants/disable-webhook', { token: owner.token, body: { assistant_id: assistant.id } });
    expect(disabled.body).toEqual({ message: 'Webhook disabled successfully', data: [] });
    expect(await handle.result()).toEqual({ status: 'cancelled', attempts: 2 });
    expect(hooks.received).toHaveLength(1);
    const refused = await platform.request('POST', `/user/webhook-deliveries/${deliveryId}/redeliver`, { token: owner.token });
    expect(refused.status).toBe(422);
  });

  it('filters the log by assistant, call and status, and pages it', async () => {
    const hooks = await receiver();
    hooks.script({ status: 400 });
    const { owner, assistant } = await ownerWithWebhook(hooks.url);
    const other = await createTestAssistant(platform, owner);
    await platform.request('POST', '/user/assistants/enable-webhook', { token: owner.token, body: { assistant_id: other.id, webhook_url: hooks.url } });
    const first = await send(owner, assistant.id, hooks.url);
    await first.handle.result();
    const second = await send(owner, other.id, hooks.url);
    await second.handle.result();

    expect((await deliveries(owner, `?assistant_id=${other.id}`)).data.map((entry: { id: number }) => entry.id)).toEqual([second.deliveryId]);
    expect((await deliveries(owner, '?status=failed')).data.map((entry: { id: number }) => entry.id)).toEqual([first.deliveryId]);
    expect((await deliveries(owner, '?call_id=999999')).total).toBe(0);
    const page = await deliveries(owner, '?per_page=1&page=2');
    expect(page).toMatchObject({ total: 2, per_page: 1, current_page: 2, last_page: 2 });
    expect(page.data.map((entry: { id: number }) => entry.id)).toEqual([first.deliveryId]);
    const invalid = await platform.request('GET', '/user/webhook-deliveries?status=lost', { token: owner.token });
    expect(invalid.status).toBe(422);
  });
});
