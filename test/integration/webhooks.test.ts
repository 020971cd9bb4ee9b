import { WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import { createLogger } from '../../src/logger.ts';
import { workflowIds } from '../../src/temporal/names.ts';
import { callSignals } from '../../src/temporal/shared.ts';
import { startWebhookDelivery } from '../../src/temporal/starters.ts';
import { recordWebhookEvent } from '../../src/webhooks/deliveries.ts';
import type { DeliveryPolicy } from '../../src/webhooks/policy.ts';
import { verifySignature } from '../../src/webhooks/signature.ts';
import type { callLifecycleWorkflow } from '../../workflows/call-lifecycle.ts';
import type { webhookDeliveryWorkflow } from '../../workflows/webhook-delivery.ts';
import type { FakeLlmServer } from '../fakes/llm-server.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { insertCall, spokenTurns } from '../support/calls.ts';
import type { TestPlatform } from '../support/platform.ts';
import { createTestUser, type TestUser } from '../support/users.ts';
import { ownerWithWebhook as ownerWithAssistantWebhook, startWebhookPlatform, webhookReceiver as receiver } from '../support/webhooks.ts';

// Waits of a tenth of a second instead of minutes; Retry-After may ask for up to 5 s.
const quick: DeliveryPolicy = { delaysMs: [100, 100], maxRetryAfterMs: 5000 };
const now = () => Math.floor(Date.now() / 1000);

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

  /** A fresh owner whose assistant posts its webhook to `url`. */
  const ownerWithWebhook = (url: string, settings: Record<string, unknown> = {}) => ownerWithAssistantWebhook(platform, 'enable-webhook', url, { settings });

  /** A web call that connects, says two lines (with a recording when asked) and is hung up by the customer; or one that never connects. */
  async function webCall(owner: TestUser, assistantId: number, options: { connect?: boolean; recorded?: boolean } = {}) {
    const created = await platform.request('POST', '/user/web-calls', { token: owner.token, body: { assistant_id: assistantId } });
    const callId = created.body.data.call_id as number;
    const handle = platform.temporal.client.workflow.getHandle<typeof callLifecycleWorkflow>(workflowIds.call(callId));
    await expect.poll(async () => (await knex()('calls').where({ id: callId }).first()).maxSeconds, { timeout: 10_000 }).not.toBeNull();
    if (options.connect === false) {
      await handle.signal(callSignals.endCall, { reason: 'operator' });
      return { callId, result: await handle.result() };
    }
    const answeredAt = new Date();
    await handle.signal(callSignals.callAnswered, { at: answeredAt.toISOString() });
    await expect.poll(async () => (await knex()('calls').where({ id: callId }).first()).status, { timeout: 10_000 }).toBe('in-progress');
    await knex()('calls').where({ id: callId }).update({
      turns: JSON.stringify(spokenTurns(answeredAt, [
        { role: 'assistant', text: 'Hello!', fromMs: 300, toMs: 1200 },
        { role: 'user', text: 'Book me in.', fromMs: 2000, toMs: 2500 },
      ])),
      ...(options.recorded ? { recordingKey: `recordings/${callId}.wav` } : {}),
    });
    llm.script({ toolCalls: [{ name: 'record_call_evaluation', arguments: { status: true, summary: 'Booked.' } }] });
    await handle.signal(callSignals.callEnded, { reason: 'customer_hangup', at: new Date(answeredAt.getTime() + 5000).toISOString() });
    return { callId, result: await handle.result() };
  }

  /** An event recorded and sent as other parts of Parley send theirs, with quick retries. */
  async function send(owner: TestUser, assistantId: number, url: string, policy: DeliveryPolicy = quick) {
    const { deliveryId, eventId } = await recordWebhookEvent(knex(), { userId: owner.id, assistantId, kind: 'call.ended', url, payload: { hello: 'world' } });
    await startWebhookDelivery(platform.temporal, { deliveryId, userId: owner.id, assistantId }, policy);
    const handle = platform.temporal.client.workflow.getHandle<typeof webhookDeliveryWorkflow>(workflowIds.webhookDelivery(deliveryId));
    return { deliveryId, eventId, handle };
  }

  const deliveries = async (owner: TestUser, query = '') => (await platform.request('GET', `/user/webhook-deliveries${query}`, { token: owner.token })).body;
  const deliveryWorkflow = (deliveryId: number) => platform.temporal.client.workflow.getHandle<typeof webhookDeliveryWorkflow>(workflowIds.webhookDelivery(deliveryId));
  const activities = (providers: Partial<TestPlatform['providers']> = {}) => createActivities({
    knex: knex(), logger: createLogger(platform.config), config: platform.config, providers: { ...platform.providers, ...providers }, temporal: platform.temporal,
  });

  /** A finished, connected call of a fresh owner whose assistant posts its webhook to `url`: ready to queue. */
  async function endedCall(url: string) {
    const { owner, assistant } = await ownerWithWebhook(url);
    const callId = await insertCall(knex(), owner.id, { assistant_id: assistant.id, type: 'outbound', status: 'ended_by_customer', duration: 42, transcript: 'AI: Hi.' });
    return { owner, assistant, callId };
  }

  it('posts every field of the post-call webhook (§13.1), signed, and keeps the JSON answer as the call\'s webhook_response', async () => {
    const hooks = await receiver();
    hooks.script({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"received":true,"crm_id":"c-7"}' });
    const { owner, assistant } = await ownerWithWebhook(hooks.url);
    const { callId, result } = await webCall(owner, assistant.id, { recorded: true });
    expect(result).toEqual({ status: 'ended_by_customer', reason: 'customer_hangup' });

    const [hook] = await hooks.arrived(1);
    const call = (await platform.request('GET', `/user/calls/${callId}`, { token: owner.token })).body;
    const row = await knex()('calls').where({ id: callId }).first();
    const payload = JSON.parse(hook!.body) as Record<string, unknown>;
    expect(Object.keys(payload)).toEqual([
      'id', 'customer_phone', 'assistant_phone', 'duration', 'status', 'extracted_variables', 'input_variables', 'transcript',
      'recording_url', 'created_at', 'finished_at', 'lead', 'campaign',
    ]);
    expect(payload).toEqual({
      id: callId,
      customer_phone: null,
      assistant_phone: null,
      duration: 5,
      status: 'ended_by_customer',
      extracted_variables: { status: true, summary: 'Booked.' },
      input_variables: {},
      transcript: 'AI: Hello!\nCustomer: Book me in.',
      recording_url: expect.stringMatching(new RegExp(`/api/recordings/${callId}\\?expires=\\d+&signature=[0-9a-f]+$`)),
      created_at: (row.createdAt as Date).toISOString(),
      finished_at: (row.updatedAt as Date).toISOString(),
      lead: null,
      campaign: null,
    });
    expect(call.transcript).toBe(payload.transcript);

    expect(hook!.method).toBe('POST');
    expect(hook!.headers['content-type']).toBe('application/json');
    expect(hook!.headers['user-agent']).toMatch(/^Parley-Webhooks\//);
    expect(hook!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(hook!.headers['x-parley-event']).toBe('call.ended');
    const secret = (await platform.request('GET', '/user/webhook-signing-secret', { token: owner.token })).body.data.secret as string;
    expect(secret).toMatch(/^whsec_/);
    const signature = hook!.headers['x-parley-signature'] as string;
    expect(verifySignature(signature, hook!.body, secret, now())).toBe(true);
    expect(verifySignature(signature, hook!.body.replace('Booked.', 'Lost.'), secret, now())).toBe(false);

    await expect.poll(async () => (await platform.request('GET', `/user/calls/${callId}`, { token: owner.token })).body.webhook_response)
      .toEqual({ received: true, crm_id: 'c-7' });
    const log = await deliveries(owner, `?call_id=${callId}`);
    expect(log.total).toBe(1);
    expect(log.data[0]).toMatchObject({
      event_id: hook!.headers['idempotency-key'], kind: 'call.ended', call_id: callId, assistant_id: assistant.id, url: hooks.url, status: 'delivered',
      attempts_count: 1, payload,
      attempts: [{ attempt: 1, status_code: 200, response_excerpt: '{"received":true,"crm_id":"c-7"}', error: null }],
    });
    expect(log.data[0].attempts[0].latency_ms).toBeGreaterThanOrEqual(0);
    // Delivered by the activity that queued it: no delivery workflow was started.
    await expect(deliveryWorkflow(log.data[0].id as number).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });

  it("gives a campaign call's webhook its numbers, its lead and its campaign, at the top and inside the lead, once per call", async () => {
    const hooks = await receiver();
    const { owner, assistant } = await ownerWithWebhook(hooks.url);
    const campaign = (await platform.request('POST', '/user/campaign', { token: owner.token, body: { name: 'Autumn', assistant_id: assistant.id } })).body.data;
    const lead = (await platform.request('POST', '/user/lead', {
      token: owner.token, body: { campaign_id: campaign.id, phone_number: '+14155550101', variables: { customer_name: 'Ada' } },
    })).body.data;
    const callId = await insertCall(knex(), owner.id, {
      assistant_id: assistant.id, campaign_id: campaign.id, lead_id: lead.id, type: 'outbound', status: 'ended_by_customer', duration: 42,
      client_phone_number: '+14155550101', assistant_phone_number: '+14155550199', transcript: 'AI: Hi Ada.', variables: { customer_name: 'Ada' },
      evaluation: { status: false, summary: 'Call back later.' },
    });
    const queued = await activities().queuePostCallWebhook({ callId });
    expect(queued).toMatchObject({ outcome: 'queued', userId: owner.id, assistantId: assistant.id, first: { outcome: 'delivered' } });
    expect(await activities().queuePostCallWebhook({ callId })).toEqual(queued);
    expect(hooks.received).toHaveLength(1);

    const stored = await knex()('webhook_deliveries').where({ callId });
    expect(stored).toHaveLength(1);
    const payload = JSON.parse(stored[0].payload as string) as Record<string, unknown>;
    const campaignObject = {
      id: campaign.id, name: 'Autumn', status: campaign.status, allowed_hours_start_time: campaign.allowed_hours_start_time,
      allowed_hours_end_time: campaign.allowed_hours_end_time, allowed_days: campaign.allowed_days, max_calls_in_parallel: campaign.max_calls_in_parallel,
      max_retries: campaign.max_retries, retry_interval: campaign.retry_interval, created_at: expect.any(String), updated_at: expect.any(String),
    };
    expect(payload).toMatchObject({
      id: callId, customer_phone: '+14155550101', assistant_phone: '+14155550199', duration: 42, status: 'ended_by_customer',
      extracted_variables: { status: false, summary: 'Call back later.' }, input_variables: { customer_name: 'Ada' }, transcript: 'AI: Hi Ada.',
      recording_url: null,
      lead: { id: lead.id, phone_number: '+14155550101', variables: { customer_name: 'Ada' }, status: 'created', created_at: expect.any(String), updated_at: expect.any(String), campaign: campaignObject },
      campaign: campaignObject,
    });
    expect(Date.parse((payload.campaign as { created_at: string }).created_at)).toBe(Date.parse(campaign.created_at as string));
  });

  it('leaves the recording out without include_recording_in_webhook, and skips calls that never connected only with send_webhook_only_on_completed', async () => {
    const hooks = await receiver();
    const { owner, assistant } = await ownerWithWebhook(hooks.url, { include_recording_in_webhook: false, send_webhook_only_on_completed: true });
    const unconnected = await webCall(owner, assistant.id, { connect: false });
    expect(unconnected.result.status).toBe('failed');
    expect(await knex()('webhook_deliveries').where({ callId: unconnected.callId })).toEqual([]);
    const connected = await webCall(owner, assistant.id, { recorded: true });
    const [hook] = await hooks.arrived(1);
    expect(JSON.parse(hook!.body)).toMatchObject({ id: connected.callId, recording_url: null });

    await platform.request('PUT', `/user/assistant/${assistant.id}`, { token: owner.token, body: { send_webhook_only_on_completed: false } });
    const failed = await webCall(owner, assistant.id, { connect: false });
    const received = await hooks.arrived(2);
    expect(JSON.parse(received[1]!.body)).toMatchObject({ id: failed.callId, status: 'failed', duration: 0 });
    expect(hooks.received).toHaveLength(2);
  });

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

  it('signs with the new and the previous secret for a day after a rotation', async () => {
    const hooks = await receiver();
    const { owner, assistant } = await ownerWithWebhook(hooks.url);
    const old = (await platform.request('GET', '/user/webhook-signing-secret', { token: owner.token })).body.data.secret as string;
    const rotated = await platform.request('POST', '/user/webhook-signing-secret/rotate', { token: owner.token });
    expect(rotated.body).toMatchObject({ message: 'Webhook signing secret rotated successfully', data: { secret: expect.stringMatching(/^whsec_/) } });
    const fresh = rotated.body.data.secret as string;
    expect(fresh).not.toBe(old);
    expect(Date.parse(rotated.body.data.previous_secret_expires_at as string) - Date.now()).toBeGreaterThan(23 * 3600 * 1000);
    expect((await platform.request('GET', '/user/webhook-signing-secret', { token: owner.token })).body).toEqual({ data: { secret: fresh } });

    const { handle } = await send(owner, assistant.id, hooks.url);
    await handle.result();
    const [hook] = await hooks.arrived(1);
    const signature = hook!.headers['x-parley-signature'] as string;
    expect(signature.match(/v1=/g)).toHaveLength(2);
    expect(verifySignature(signature, hook!.body, fresh, now())).toBe(true);
    expect(verifySignature(signature, hook!.body, old, now())).toBe(true);
    // Stored encrypted, like every secret at rest.
    const stored = await knex()('webhook_signing_secrets').where({ userId: owner.id }).first();
    expect(JSON.stringify(stored)).not.toContain(fresh.slice(6));
  });
});
