import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceMicros, recordEntry } from '../../src/billing/ledger.ts';
import { requestCallEnd } from '../../src/temporal/call-signals.ts';
import { workflowIds } from '../../src/temporal/names.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { ownerWithNumbers } from '../support/phone-calls.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser } from '../support/users.ts';

const UNAFFORDABLE = 'Insufficient balance to make call. Please top up your account.';

/**
 * Calls requested at once on a balance that pays for only a few of them (docs/decisions.md, "Calls reserve the
 * balance a minute at a time"): each is either refused up front with the contract's balance error or created
 * with its first minute reserved, and then runs; none is accepted only to fail for the balance a moment later.
 */
describe('calls at once on a small balance', () => {
  let platform: TestPlatform;

  beforeAll(async () => {
    platform = await startTestPlatform({ worker: true, env: { LLM_BASE_URL: 'http://127.0.0.1:9/v1', LLM_API_KEY: 'test' } });
  }, 60_000);
  afterAll(() => platform?.close());

  const knex = () => platform.database.knex;

  /** The calls' workflows once prepared: still waiting to connect, or already over (and why). */
  async function prepared(callIds: number[]): Promise<string[]> {
    return Promise.all(callIds.map(async (callId) => {
      const handle = platform.temporal.client.workflow.getHandle(workflowIds.call(callId));
      let phase = 'preparing';
      while (phase === 'preparing') {
        if ((await handle.describe()).status.name !== 'RUNNING') return `ended ${(await knex()('calls').where({ id: callId }).first()).endReason}`;
        phase = await handle.query<string>('phase');
      }
      return phase;
    }));
  }

  it('creates as many web calls as the balance pays a minute of, refuses the rest up front, and runs every one it created', async () => {
    // 0.30 USD at 0.10 USD a minute: three first minutes.
    const owner = await createTestUser(knex(), { balanceUsd: 0.3 });
    const assistant = await createTestAssistant(platform, owner);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, index) => (index % 2 === 0
      ? platform.request('POST', '/user/web-calls', { token: owner.token, body: { assistant_id: assistant.id } })
      : platform.request('POST', '/web-calls', { body: { assistant_id: assistant.uuid } }))));

    const created = answers.filter((answer) => answer.status === 201).map((answer) => answer.body.data.call_id as number);
    expect(created).toHaveLength(3);
    for (const refused of answers.filter((answer) => answer.status !== 201)) {
      expect(refused.status).toBe(422);
      expect([{ message: UNAFFORDABLE }, { status: false, error: UNAFFORDABLE }]).toContainEqual(refused.body);
    }
    expect(await prepared(created)).toEqual(['connecting', 'connecting', 'connecting']);
    await Promise.all(created.map((callId) => requestCallEnd(platform.temporal, callId, 'test_over', 10_000)));
  });

  it('does the same for make_call: 200 for the calls it places, 422 for the rest, none failed for the balance', async () => {
    const { owner, numbers } = await ownerWithNumbers(platform);
    const assistant = await createTestAssistant(platform, owner, { phone_number_id: numbers[0]!.id });
    // What buying the number left, down to 0.30 USD.
    await recordEntry(knex(), { userId: owner.id, amountMicros: 300_000 - await balanceMicros(knex(), owner.id), kind: 'adjustment', idempotencyKey: `small-${owner.id}` });
    // A sandbox callee whose line is busy: the calls end at once, as the carrier says.
    const answers = await Promise.all(Array.from({ length: 10 }, () => platform.request('POST', '/user/make_call', {
      token: owner.token, body: { phone_number: '+14155550181', assistant_id: assistant.id },
    })));

    const placed = answers.filter((answer) => answer.status === 200).map((answer) => answer.body.call_id as number);
    expect(placed).toHaveLength(3);
    for (const refused of answers.filter((answer) => answer.status !== 200)) expect(refused).toMatchObject({ status: 422, body: { message: UNAFFORDABLE } });
    await Promise.all(placed.map((callId) => platform.temporal.client.workflow.getHandle(workflowIds.call(callId)).result()));
    const ends = await knex()('calls').whereIn('id', placed).select('endReason');
    expect(ends).toEqual([{ endReason: 'busy' }, { endReason: 'busy' }, { endReason: 'busy' }]);
  }, 60_000);
});
