/**
 * A web call through the platform's media gateway, as a browser places it: `POST /user/web-calls`, then a
 * scripted Media Streams caller on the `websocket_url` it answers. Also what the call tests read from the
 * caller's side (the live transcript the gateway sends), and the testbed the web-call tests share: the
 * platform with its worker and media gateway, the fake language model and an owner with a balance.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { workflowIds } from '../../src/temporal/names.ts';
import { startFakeLlmServer, type ChatCompletionRequest, type FakeLlmServer, type FakeTurn } from '../fakes/llm-server.ts';
import { createTestAssistant } from './assistants.ts';
import { connectMediaStream, L16_16K, type MediaStreamClient } from './media-stream-client.ts';
import { startTestPlatform, type TestPlatform } from './platform.ts';
import { warmUpSpeech } from './speech.ts';
import { createTestUser, type TestUser } from './users.ts';

export interface PlacedWebCall {
  callId: number;
  /** The address the platform answered, the caller is connected to. */
  websocketUrl: string;
  caller: MediaStreamClient;
}

/** Creates a web call of `assistantId` and connects a caller that has sent its `start`. */
export async function placeWebCall(platform: TestPlatform, owner: TestUser, assistantId: number): Promise<PlacedWebCall> {
  const created = await platform.request('POST', '/user/web-calls', { token: owner.token, body: { assistant_id: assistantId } });
  expect(created.status).toBe(201);
  const { call_id: callId, websocket_url: websocketUrl } = created.body.data as { call_id: number; websocket_url: string };
  const caller = await connectMediaStream(websocketUrl, L16_16K);
  caller.start();
  return { callId, websocketUrl, caller };
}

/** The platform (worker and media gateway) web calls are placed on, with the fake model and its owner. */
export interface WebCallTestbed {
  platform: TestPlatform;
  /** A user with $5, who owns the assistants and places the calls. */
  owner: TestUser;
  llm: FakeLlmServer;
  /** Creates an assistant of the owner (createTestAssistant, `settings` over its defaults) and answers its id. */
  assistant: (settings?: Record<string, unknown>) => Promise<number>;
  /** Places a web call to the assistant (placeWebCall). */
  call: (assistantId: number) => Promise<PlacedWebCall>;
  /** Once the call's workflow has ended: its result and the stored call. */
  settled: (callId: number) => Promise<{ result: any; call: any }>;
  /** The balance transactions that charged the call. */
  charges: (callId: number) => Promise<any[]>;
}

/**
 * Registers the hooks that start and stop the testbed in the calling `describe`; the fake model plays `scenario`.
 * `warmUp`: the offline speech models are loaded first, so the first call hears and speaks in time;
 * `env`: more of the platform's settings, read once the model is up (the fakes of other providers).
 */
export function webCallTestbed(
  scenario: (request: ChatCompletionRequest) => FakeTurn,
  options: { warmUp?: boolean; env?: () => Record<string, string> } = {},
): WebCallTestbed {
  const testbed: WebCallTestbed = {
    platform: undefined as unknown as TestPlatform,
    owner: undefined as unknown as TestUser,
    llm: undefined as unknown as FakeLlmServer,
    assistant: async (settings) => (await createTestAssistant(testbed.platform, testbed.owner, settings)).id,
    call: (assistantId) => placeWebCall(testbed.platform, testbed.owner, assistantId),
    settled: async (callId) => {
      const result = await testbed.platform.temporal.client.workflow.getHandle(workflowIds.call(callId)).result();
      return { result, call: await testbed.platform.database.knex('calls').where({ id: callId }).first() };
    },
    charges: async (callId) => testbed.platform.database.knex('balance_transactions').where({ idempotencyKey: `call-${callId}` }),
  };
  beforeAll(async () => {
    testbed.llm = await startFakeLlmServer({ chunkSize: 4 });
    testbed.llm.respond(scenario);
    testbed.platform = await startTestPlatform({ worker: true, media: true, env: { LLM_BASE_URL: testbed.llm.baseUrl, LLM_API_KEY: 'test', ...options.env?.() } });
    if (options.warmUp) await warmUpSpeech(testbed.platform.providers);
    testbed.owner = await createTestUser(testbed.platform.database.knex, { balanceUsd: 5 });
  }, 60_000);
  afterAll(async () => {
    await testbed.platform?.close();
    await testbed.llm?.close();
  });
  return testbed;
}

/** The live transcript the caller was sent, as `role: text` lines. */
export function transcriptLines(caller: MediaStreamClient): string[] {
  return caller.received.flatMap((message) => (message.transcript ? [`${message.transcript.role}: ${message.transcript.text}`] : []));
}

/** Resolves once the live transcript has `count` lines, with them. */
export async function transcriptOf(caller: MediaStreamClient, count: number, timeoutMs = 30_000): Promise<string[]> {
  await caller.waitFor(() => transcriptLines(caller).length >= count, timeoutMs, `${count} transcript lines after ${JSON.stringify(transcriptLines(caller))}`);
  return transcriptLines(caller);
}
