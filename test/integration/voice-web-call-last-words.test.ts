import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowIds } from '../../src/temporal/names.ts';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/llm-server.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { speechInstalled, speechSkipReason, spokenPcm, toVoiceEnd, warmUpSpeech } from '../support/speech.ts';
import { createTestUser, type TestUser } from '../support/users.ts';
import { placeWebCall } from '../support/web-call.ts';

/**
 * A caller who says a line and hangs up the moment their voice ends, before the pause that would end their
 * turn: the words are their last turn in the stored call (the offline stack: Silero VAD, Whisper tiny.en),
 * not answered, and the call is charged once.
 */
describe.skipIf(!speechInstalled)(`the caller's last words on a web call${speechInstalled ? '' : ` (${speechSkipReason})`}`, () => {
  let llm: FakeLlmServer;
  let platform: TestPlatform;
  let owner: TestUser;

  beforeAll(async () => {
    llm = await startFakeLlmServer({ chunkSize: 4 });
    llm.respond(() => ({ reply: 'Of course.' }));
    platform = await startTestPlatform({ worker: true, media: true, env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test' } });
    await warmUpSpeech(platform.providers);
    owner = await createTestUser(platform.database.knex, { balanceUsd: 5 });
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    await llm?.close();
  });

  it('stores the line the caller said as they hung up as their last turn, unanswered, and charges the call once', async () => {
    const assistant = await createTestAssistant(platform, owner, { wait_for_customer: true, post_call_evaluation: false });
    const { callId, caller } = await placeWebCall(platform, owner, assistant.id);
    const line = toVoiceEnd(await spokenPcm('Please cancel my order.', { silenceMs: 300 }));
    const requestsBefore = llm.requests.length;

    await caller.say(line);
    caller.stop();
    expect((await caller.closed).code).toBe(1000);

    const result = await platform.temporal.client.workflow.getHandle(workflowIds.call(callId)).result();
    expect(result).toMatchObject({ status: 'ended_by_customer' });
    const knex = platform.database.knex;
    const call = await knex('calls').where({ id: callId }).first();
    expect(call.transcript).toMatch(/^Customer: .*cancel.*order.*$/i);
    expect(call.turns).toEqual([expect.objectContaining({ role: 'user', text: expect.stringMatching(/cancel.*order/i), interrupted: false })]);
    expect(llm.requests.length, 'no reply to the last words').toBe(requestsBefore);
    const charges = await knex('balance_transactions').where({ idempotencyKey: `call-${callId}` });
    expect(charges).toHaveLength(1);
    expect(Number(charges[0].amountMicros)).toBe(-Number(call.totalCostMicros));
  }, 60_000);
});
