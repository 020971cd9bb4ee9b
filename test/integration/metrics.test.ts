import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { startMetricsServer, type MetricsServer } from '../../src/roles/metrics-server.ts';
import { workflowIds } from '../../src/temporal/names.ts';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/llm-server.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { connectMediaStream, L16_16K } from '../support/media-stream-client.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { energyVad, tone, toneStt, toneTts } from '../support/speech-doubles.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

const TOKEN = 'scrape-secret';
const QUESTION = { pitch: 300, text: 'What are your opening hours?' };

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition. */
function parseExposition(text: string): Sample[] {
  return text.split('\n').filter((line) => line !== '' && !line.startsWith('#')).map((line) => {
    const match = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, key, value]) => [key, value]));
    return { name: match[1]!, labels, value: Number(match[3]) };
  });
}

/**
 * GET /metrics on its own port (roles/metrics-server.ts) over the registry of a platform running the api, the
 * worker and the media role, as `npm start` does: never on the API's port, only with the token, and with the
 * metrics of a request, a web call's turns and a chat whose model failed.
 */
describe('metrics', () => {
  let llm: FakeLlmServer;
  let platform: TestPlatform;
  let server: MetricsServer;
  let owner: TestUser;

  beforeAll(async () => {
    llm = await startFakeLlmServer();
    const tts = toneTts();
    platform = await startTestPlatform({
      worker: true,
      media: true,
      env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test' },
      providers: { stt: toneStt({ [QUESTION.pitch]: QUESTION.text }), vad: energyVad(), tts: { forCode: () => tts, default: tts, codes: ['espeak'] } },
    });
    const config = { ...platform.config, metrics: { port: 0, host: '127.0.0.1', token: TOKEN } };
    server = (await startMetricsServer(config, platform.metrics, createLogger(config)))!;
    owner = await createTestUser(platform.database.knex, { balanceUsd: 5 });
  }, 60_000);
  afterAll(async () => {
    await server?.stop(Date.now());
    await platform?.close();
    await llm?.close();
  });

  const scrape = (token?: string) => fetch(`http://${server.address}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  async function samples(): Promise<Sample[]> {
    const response = await scrape(TOKEN);
    expect(response.status).toBe(200);
    return parseExposition(await response.text());
  }
  const valueOf = (all: Sample[], name: string, labels: Record<string, string> = {}) =>
    all.find((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))?.value;

  it('is served only on its own port, and only with the token', async () => {
    for (const path of ['/metrics', '/api/metrics']) expect((await fetch(`${platform.baseUrl}${path}`)).status).toBe(404);
    expect((await scrape()).status).toBe(401);
    expect((await scrape('wrong')).status).toBe(401);
    expect((await fetch(`http://${server.address}/other`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
    const answered = await scrape(TOKEN);
    expect(answered.status).toBe(200);
    expect(answered.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it('counts requests by route pattern and status, and measures a web call and its turns', async () => {
    llm.respond((request) => (request.tool_choice
      ? { toolCalls: [{ name: 'record_call_evaluation', arguments: { status: true, summary: 'Asked for the hours.' } }] }
      : { reply: 'We open at nine.' }));
    const assistant = await createTestAssistant(platform, owner, { wait_for_customer: true });
    const before = await samples();
    expect((await platform.request('GET', `/user/assistant/${assistant.id}`, { token: owner.token })).status).toBe(200);
    expect((await platform.request('GET', '/user/assistant/999999999', { token: owner.token })).status).toBe(404);

    const created = await platform.request('POST', '/user/web-calls', { token: owner.token, body: { assistant_id: assistant.id } });
    expect(created.status).toBe(201);
    const caller = await connectMediaStream(created.body.data.websocket_url as string, L16_16K);
    caller.start();
    await caller.say(tone(QUESTION.pitch, 600));
    await caller.waitFor(() => caller.received.some((message) => message.transcript?.role === 'assistant'), 10_000, 'the reply');
    const during = await samples();
    expect(valueOf(during, 'parley_calls_in_progress', { source: 'browser' })).toBe(1);
    caller.stop();
    await caller.closed;
    await platform.temporal.client.workflow.getHandle(workflowIds.call(created.body.data.call_id as number)).result();

    const after = await samples();
    const route = '/api/user/assistant/{id}';
    const grown = (name: string, labels: Record<string, string>) => (valueOf(after, name, labels) ?? 0) - (valueOf(before, name, labels) ?? 0);
    expect(grown('parley_http_requests_total', { method: 'GET', route, status: '200' })).toBe(1);
    expect(grown('parley_http_requests_total', { method: 'GET', route, status: '404' })).toBe(1);
    expect(grown('parley_http_request_duration_seconds_count', { method: 'POST', route: '/api/user/web-calls', status: '201' })).toBe(1);
    // No series per raw path: the ids never become labels.
    expect(after.some((sample) => sample.labels.route?.includes(String(assistant.id)))).toBe(false);
    await expect.poll(async () => valueOf(await samples(), 'parley_calls_in_progress', { source: 'browser' })).toBe(0);
    for (const component of ['end_of_speech_to_first_audio', 'stt_final_delay', 'llm_first_token', 'tts_first_byte']) {
      expect(grown('parley_turn_latency_seconds_count', { component })).toBe(1);
    }
    // Read from the calls table at scrape time: on PostgreSQL the other test files' campaigns share it.
    expect(valueOf(after, 'parley_campaign_calls_in_flight')).toBeGreaterThanOrEqual(0);
    // The dev server reports its task queue's stats (DescribeTaskQueue with report_stats).
    expect(valueOf(after, 'parley_temporal_task_queue_backlog', { type: 'workflow' })).toBeGreaterThanOrEqual(0);
    expect(valueOf(after, 'parley_temporal_task_queue_backlog_age_seconds', { type: 'activity' })).toBeGreaterThanOrEqual(0);
  }, 60_000);

  it("counts a chat's failed model as an llm error", async () => {
    const before = valueOf(await samples(), 'parley_provider_errors_total', { provider: 'llm' }) ?? 0;
    const assistant = await createTestAssistant(platform, owner);
    const started = await platform.request('POST', '/conversations', { body: { assistant_id: assistant.uuid, type: 'test' } });
    expect(started.status).toBe(200);
    llm.respond(() => ({ status: 400, error: 'the model is misconfigured' }));
    const reply = await platform.request('POST', `/conversations/${started.body.conversation_id as string}/messages`, { body: { message: 'Hello?' } });
    expect(reply.status).toBeGreaterThanOrEqual(400);
    expect(valueOf(await samples(), 'parley_provider_errors_total', { provider: 'llm' })).toBe(before + 1);
  });
});
