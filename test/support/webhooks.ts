import { expect, onTestFinished } from 'vitest';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/llm-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { createTestAssistant } from './assistants.ts';
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
