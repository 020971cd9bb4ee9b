import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { workflowIds } from '../../src/temporal/names.ts';
import { startCallLifecycle } from '../../src/temporal/starters.ts';
import { startFakeLlmServer, type ChatCompletionRequest, type FakeLlmServer, type FakeTurn } from '../fakes/llm-server.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { speechInstalled, speechSkipReason } from '../support/speech.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

/**
 * Outbound phone calls on the embedded default, end to end: the workflow dials through the sandbox carrier,
 * which rings a simulated callee chosen by the number's last two digits, reports its status callbacks signed,
 * and streams the answered call to the media gateway, where the voice engine talks with the callee's
 * espeak-ng lines over Whisper and the fake language model.
 */
describe.skipIf(!speechInstalled)(`phone calls through the sandbox carrier${speechInstalled ? '' : ` (${speechSkipReason})`}`, () => {
  let llm: FakeLlmServer;
  let platform: TestPlatform;
  let owner: TestUser;
  let assistantId: number;
  const from = `+1415${String(Math.floor(Math.random() * 9_000_000) + 1_000_000)}`;

  const lastUserText = (request: ChatCompletionRequest) => [...request.messages].reverse().find((message) => message.role === 'user')?.content?.toLowerCase() ?? '';

  beforeAll(async () => {
    llm = await startFakeLlmServer({ chunkSize: 4 });
    llm.respond((request): FakeTurn => {
      if (request.tool_choice) return { toolCalls: [{ name: 'record_call_evaluation', arguments: { status: true, summary: 'Sam is interested.' } }] };
      if (/goodbye/.test(lastUserText(request))) return { reply: 'Thank you Sam, goodbye.' };
      return { reply: 'Nice to meet you, Sam. I am calling about Parley.' };
    });
    platform = await startTestPlatform({ worker: true, media: true, env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test' } });
    owner = await createTestUser(platform.database.knex, { balanceUsd: 5 });
    assistantId = (await createTestAssistant(platform, owner, { initial_message: 'Hello, this is Parley calling.' })).id;
    // The number the assistant calls from, held at the sandbox carrier as a purchase leaves it.
    await platform.database.knex('sandbox_phone_numbers').insert({ id: `PNsbx${randomBytes(14).toString('hex')}`, phoneNumber: from, idempotencyKey: `test-${from}` });
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    await llm?.close();
  });

  const knex = () => platform.database.knex;
  async function dial(to: string) {
    const [row] = await knex()('calls').insert({
      userId: owner.id, assistantId, assistantName: 'Test Assistant', type: 'outbound', assistantPhoneNumber: from, clientPhoneNumber: to,
    }).returning('id');
    const callId = Number((row as { id: number }).id);
    await startCallLifecycle(platform.temporal, { id: callId, userId: owner.id, assistantId }, createLogger(platform.config));
    await platform.temporal.client.workflow.getHandle(workflowIds.call(callId)).result();
    return knex()('calls').where({ id: callId }).first();
  }

  it('rings a person who talks with the assistant for two turns and hangs up after its goodbye', async () => {
    const call = await dial('+14155550123');
    expect(call).toMatchObject({ status: 'ended_by_customer', endReason: 'customer_hangup', providerCallId: expect.stringMatching(/^CA/) });
    expect(call.answeredAt).not.toBeNull();
    expect(call.duration).toBeGreaterThan(3);
    // Whisper tiny hears espeak-ng over an 8 kHz phone line roughly: the turns, not the callee's exact words.
    expect(call.turns.map((turn: { role: string }) => turn.role)).toEqual(['assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(call.transcript).toMatch(/^AI: Hello, this is Parley calling\.\nCustomer: .+\nAI: Nice to meet you, Sam\. I am calling about Parley\.\n/);
    expect(call.transcript).toMatch(/\nCustomer: .*goodbye.*\nAI: Thank you Sam, goodbye\.$/i);
    expect(Number(call.totalCostMicros)).toBeGreaterThan(0);
    const carrier = platform.sandboxCarrier!.get(call.providerCallId as string)!;
    expect(carrier).toMatchObject({ callee: 'person', status: 'completed' });
    // The greeting starts as soon as the callee answers.
    expect(carrier.firstSoundAt! - carrier.answeredAt!).toBeLessThan(1500);
  }, 90_000);

  it('ends busy and failed numbers as the carrier says, at no cost', async () => {
    const [busy, failed] = await Promise.all([dial('+14155550181'), dial('+14155550196')]);
    expect(busy).toMatchObject({ status: 'busy', endReason: 'busy', duration: 0, answeredAt: null });
    expect(Number(busy.totalCostMicros)).toBe(0);
    expect(failed).toMatchObject({ status: 'failed', endReason: 'failed', answeredAt: null });
  }, 30_000);

  it('bills the callee who answers and hangs up without a word', async () => {
    const call = await dial('+14155550199');
    expect(call).toMatchObject({ status: 'ended_by_customer' });
    expect(call.duration).toBeGreaterThanOrEqual(2);
    // It hung up during the greeting: the transcript holds what it heard.
    expect(call.transcript).toMatch(/^AI: Hello/);
    expect(call.turns).toHaveLength(1);
  }, 30_000);
});
