import { expect, onTestFinished } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import { createLogger } from '../../src/logger.ts';
import { workflowIds } from '../../src/temporal/names.ts';
import { callSignals } from '../../src/temporal/shared.ts';
import { startWebhookDelivery } from '../../src/temporal/starters.ts';
import { recordWebhookEvent } from '../../src/webhooks/deliveries.ts';
import type { DeliveryPolicy } from '../../src/webhooks/policy.ts';
import type { callLifecycleWorkflow } from '../../workflows/call-lifecycle.ts';
import type { webhookDeliveryWorkflow } from '../../workflows/webhook-delivery.ts';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/llm-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { createTestAssistant } from './assistants.ts';
import { insertCall, spokenTurns } from './calls.ts';
import { startTestPlatform, type TestPlatform } from './platform.ts';
import { createTestUser, type TestUser } from './users.ts';

/**
 * The fake language model and a platform with the real worker asking it, allowed to post webhooks to local
 * receivers (FETCH_ALLOW_HOSTS); `env` adds to its configuration. The caller closes both.
 */
export async function startWebhookPlatform(env: Record<string, string> = {}): Promise<{ llm: FakeLlmServer; platform: TestPlatform }> {
  const llm = await startFakeLlmServer();
  const platform = await startTestPlatform({ worker: true, env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test', FETCH_ALLOW_HOSTS: '127.0.0.1', ...env } });
  return { llm, platform };
}

/** A local receiver standing for the customer's endpoint, closed when the test finishes. */
export async function webhookReceiver(): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver();
  onTestFinished(() => started.close());
  return started;
}

/** The assistant webhooks an owner enables through the API, by the path that enables each, and its answer. */
const ENABLED = {
  'enable-webhook': 'Webhook enabled successfully',
  'enable-conversation-ended-webhook': 'Conversation ended webhook enabled successfully',
} as const;

/**
 * A fresh owner ($1, in `timezone` when given) whose new assistant (with `settings`) posts the webhook that
 * `enable` turns on to `url`.
 */
export async function ownerWithWebhook(platform: TestPlatform, enable: keyof typeof ENABLED, url: string, options: {
  settings?: Record<string, unknown>;
  timezone?: string;
} = {}): Promise<{ owner: TestUser; assistant: { id: number; uuid: string } }> {
  const knex = platform.database.knex;
  const owner = await createTestUser(knex, { balanceUsd: 1 });
  if (options.timezone) await knex('users').where({ id: owner.id }).update({ timezone: options.timezone });
  const assistant = await createTestAssistant(platform, owner, options.settings);
  const enabled = await platform.request('POST', `/user/assistants/${enable}`, { token: owner.token, body: { assistant_id: assistant.id, webhook_url: url } });
  expect(enabled.body).toEqual({ message: ENABLED[enable], data: [] });
  return { owner, assistant };
}

// Waits of a tenth of a second instead of minutes; Retry-After may ask for up to 5 s.
export const QUICK_RETRIES: DeliveryPolicy = { delaysMs: [100, 100], maxRetryAfterMs: 5000 };

/**
 * What the post-call webhook tests do on the platform and fake model `started` gives (once started): owners
 * with a webhook, web calls, events sent as Parley sends them, the delivery log, and the activities.
 */
export function postCallWebhooks(started: () => { llm: FakeLlmServer; platform: TestPlatform }) {
  const knex = () => started().platform.database.knex;

  /** A fresh owner whose assistant posts its webhook to `url`. */
  const ownerWithAssistantWebhook = (url: string, settings: Record<string, unknown> = {}) => ownerWithWebhook(started().platform, 'enable-webhook', url, { settings });

  /** A web call that connects, says two lines (with a recording when asked) and is hung up by the customer; or one that never connects. */
  async function webCall(owner: TestUser, assistantId: number, options: { connect?: boolean; recorded?: boolean } = {}) {
    const { llm, platform } = started();
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
  async function send(owner: TestUser, assistantId: number, url: string, policy: DeliveryPolicy = QUICK_RETRIES) {
    const { deliveryId, eventId } = await recordWebhookEvent(knex(), { userId: owner.id, assistantId, kind: 'call.ended', url, payload: { hello: 'world' } });
    await startWebhookDelivery(started().platform.temporal, { deliveryId, userId: owner.id, assistantId }, policy);
    const handle = started().platform.temporal.client.workflow.getHandle<typeof webhookDeliveryWorkflow>(workflowIds.webhookDelivery(deliveryId));
    return { deliveryId, eventId, handle };
  }

  const deliveries = async (owner: TestUser, query = '') => (await started().platform.request('GET', `/user/webhook-deliveries${query}`, { token: owner.token })).body;
  const deliveryWorkflow = (deliveryId: number) => started().platform.temporal.client.workflow.getHandle<typeof webhookDeliveryWorkflow>(workflowIds.webhookDelivery(deliveryId));
  const activities = (providers: Partial<TestPlatform['providers']> = {}) => {
    const { platform } = started();
    return createActivities({
      knex: knex(), logger: createLogger(platform.config), config: platform.config, providers: { ...platform.providers, ...providers }, temporal: platform.temporal,
    });
  };

  /** A finished, connected call of a fresh owner whose assistant posts its webhook to `url`: ready to queue. */
  async function endedCall(url: string) {
    const { owner, assistant } = await ownerWithAssistantWebhook(url);
    const callId = await insertCall(knex(), owner.id, { assistant_id: assistant.id, type: 'outbound', status: 'ended_by_customer', duration: 42, transcript: 'AI: Hi.' });
    return { owner, assistant, callId };
  }

  return { ownerWithWebhook: ownerWithAssistantWebhook, webCall, send, deliveries, deliveryWorkflow, activities, endedCall };
}
