import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceMicros } from '../../src/billing/ledger.ts';
import { workflowIds } from '../../src/temporal/names.ts';
import { callSignals } from '../../src/temporal/shared.ts';
import type { callLifecycleWorkflow } from '../../workflows/call-lifecycle.ts';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/llm-server.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { spokenTurns } from '../support/calls.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser } from '../support/users.ts';

describe('a web call through its lifecycle, on the real worker and activities', () => {
  let llm: FakeLlmServer;
  let platform: TestPlatform;

  beforeAll(async () => {
    llm = await startFakeLlmServer();
    platform = await startTestPlatform({ worker: true, env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test' } });
  });
  afterAll(async () => {
    await platform.close();
    await llm.close();
  });

  it('is created, answered and hung up by the customer, then stored, billed once and evaluated', async () => {
    const knex = platform.database.knex;
    const owner = await createTestUser(knex, { balanceUsd: 0.5 });
    const assistant = await createTestAssistant(platform, owner, { max_duration: 600 });
    const before = await balanceMicros(knex, owner.id);
    const created = await platform.request('POST', '/user/web-calls', { token: owner.token, body: { assistant_id: assistant.id } });
    const callId = created.body.data.call_id as number;
    const handle = platform.temporal.client.workflow.getHandle<typeof callLifecycleWorkflow>(workflowIds.call(callId));

    // Created with its first minute reserved (0.10 USD of the 0.50), and a limit of the assistant's 600 seconds.
    expect(await knex('calls').where({ id: callId }).first()).toMatchObject({ maxSeconds: 60, maxDurationSeconds: 600, reservedMicros: 100_000 });
    const answeredAt = new Date();
    await handle.signal(callSignals.callAnswered, { at: answeredAt.toISOString() });
    await expect.poll(async () => (await knex('calls').where({ id: callId }).first()).status, { timeout: 10_000 }).toBe('in-progress');
    // What the media engine appends as the turns are spoken.
    await knex('calls').where({ id: callId }).update({ turns: JSON.stringify(spokenTurns(answeredAt, [
      { role: 'assistant', text: 'Hello!', fromMs: 300, toMs: 1200 },
      { role: 'user', text: 'Bye.', fromMs: 2000, toMs: 2500 },
    ])) });
    llm.script({ toolCalls: [{ name: 'record_call_evaluation', arguments: { status: false, summary: 'The customer left at once.' } }] });
    await handle.signal(callSignals.callEnded, { reason: 'customer_hangup', at: new Date(answeredAt.getTime() + 12_300).toISOString() });

    expect(await handle.result()).toEqual({ status: 'ended_by_customer', reason: 'customer_hangup' });
    expect(await knex('calls').where({ id: callId }).first()).toMatchObject({
      status: 'ended_by_customer',
      endReason: 'customer_hangup',
      duration: 13,
      transcript: 'AI: Hello!\nCustomer: Bye.',
      totalCostMicros: 21_667,
      limitReason: 'balance',
      evaluation: { status: false, summary: 'The customer left at once.' },
    });
    expect(await balanceMicros(knex, owner.id)).toBe(before - 21_667);
  });
});
