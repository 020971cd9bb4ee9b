import { WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/webhooks/signature.ts';
import type { FakeLlmServer } from '../fakes/llm-server.ts';
import { insertCall } from '../support/calls.ts';
import type { TestPlatform } from '../support/platform.ts';
import { postCallWebhooks, startWebhookPlatform, webhookReceiver as receiver } from '../support/webhooks.ts';

// What a post-call webhook carries: its payload (of a web call, of a campaign's call, with or without the
// recording), its headers and its signature. How it is delivered, retried and logged is in
// webhooks-delivery.test.ts.

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
  const { ownerWithWebhook, webCall, send, deliveries, deliveryWorkflow, activities } = postCallWebhooks(() => ({ llm, platform }));

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
