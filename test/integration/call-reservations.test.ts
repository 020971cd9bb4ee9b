import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCallActivities } from '../../activities/calls.ts';
import { extendCallReservation } from '../../src/billing/call-reservations.ts';
import { balanceMicros, recordEntry } from '../../src/billing/ledger.ts';
import { createLogger } from '../../src/logger.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

const answeredAt = new Date('2026-11-23T12:00:00.000Z');
const at = (seconds: number) => new Date(answeredAt.getTime() + seconds * 1000).toISOString();

/**
 * Calls reserve their owner's balance a minute at a time (billing/call-reservations.ts): what several live calls
 * hold together never exceeds the balance, however they start and extend, and each is billed no further than
 * what it held; a call whose media session was lost is billed to the session's last report.
 */
describe('call reservations', () => {
  let platform: TestPlatform;
  let activities: ReturnType<typeof createCallActivities>;

  beforeAll(async () => {
    platform = await startTestPlatform({ env: { LLM_BASE_URL: 'http://127.0.0.1:9/v1', LLM_API_KEY: 'test' } });
    activities = createCallActivities({ knex: platform.database.knex, logger: createLogger(platform.config), config: platform.config, providers: platform.providers });
  });
  afterAll(() => platform.close());

  const knex = () => platform.database.knex;
  const callRow = (id: number) => knex()('calls').where({ id }).first();

  async function ownerWithAssistant(balanceUsd: number, maxDuration = 1200): Promise<{ owner: TestUser; assistantId: number }> {
    const owner = await createTestUser(knex(), { balanceUsd });
    return { owner, assistantId: (await createTestAssistant(platform, owner, { max_duration: maxDuration })).id };
  }

  /** A call as the API creates one (its first minute reserved), prepared and answered. */
  async function liveCall(owner: TestUser, assistantId: number): Promise<number | undefined> {
    const [row] = await knex()('calls').insert({ userId: owner.id, assistantId, assistantName: 'Test Assistant', type: 'web' }).returning('id');
    const callId = Number(row.id);
    const prepared = await activities.prepareCall({ callId });
    if (prepared.outcome === 'refused') return undefined;
    await activities.markAnswered({ callId, at: answeredAt.toISOString() });
    return callId;
  }

  const held = async (userId: number) => Number((await knex()('calls').where({ userId }).whereNull('endedAt').sum({ total: 'reserved_micros' }))[0]?.total ?? 0);

  it('extends a live call a minute at a time while the balance pays, up to its limit', async () => {
    // 0.25 USD at 0.10 USD a minute: 150 seconds in all.
    const { owner, assistantId } = await ownerWithAssistant(0.25, 600);
    const callId = (await liveCall(owner, assistantId))!;
    expect(await callRow(callId)).toMatchObject({ maxSeconds: 60, reservedMicros: 100_000 });
    expect(await extendCallReservation(knex(), callId)).toBe(120);
    expect(await extendCallReservation(knex(), callId)).toBe(150);
    expect(await extendCallReservation(knex(), callId)).toBeUndefined();
    expect(await callRow(callId)).toMatchObject({ maxSeconds: 150, limitReason: 'balance', reservedMicros: 250_000 });

    // A top-up meanwhile counts for the live call too.
    await recordEntry(knex(), { userId: owner.id, amountMicros: 5_000_000, kind: 'adjustment', idempotencyKey: `top-up-${callId}` });
    expect(await extendCallReservation(knex(), callId)).toBe(210);
    // Run to what it held, and past it by the goodbye: billed what it held.
    await activities.finalizeCall({ callId, reason: 'balance_exhausted', endedAt: at(214) });
    expect(await callRow(callId)).toMatchObject({ duration: 214, totalCostMicros: 350_000 });
    expect(await extendCallReservation(knex(), callId)).toBeUndefined();
  });

  it('stops at the max_call_duration, never reserving past it', async () => {
    const { owner, assistantId } = await ownerWithAssistant(5, 90);
    const callId = (await liveCall(owner, assistantId))!;
    expect(await extendCallReservation(knex(), callId)).toBe(90);
    expect(await callRow(callId)).toMatchObject({ maxSeconds: 90, limitReason: 'max_call_duration', reservedMicros: 150_000 });
    expect(await extendCallReservation(knex(), callId)).toBeUndefined();
  });

  it('lets calls started and extended at once hold no more than the balance together, and charges no more', async () => {
    // 0.50 USD: five minutes for every call of the account together.
    const { owner, assistantId } = await ownerWithAssistant(0.5);
    const started = await Promise.all(Array.from({ length: 7 }, () => liveCall(owner, assistantId)));
    const live = started.filter((id): id is number => id !== undefined);
    expect(live).toHaveLength(5);
    expect(await held(owner.id)).toBe(500_000);
    // Nothing left to extend into: every extension at once finds the balance held.
    expect(await Promise.all(live.map((callId) => extendCallReservation(knex(), callId)))).toEqual(live.map(() => undefined));

    // One ends after 20 s: 0.033 USD spent, the rest of its minute free for the others' extensions, raced.
    await activities.finalizeCall({ callId: live[0]!, reason: 'customer_hangup', endedAt: at(20) });
    const extended = await Promise.all(live.slice(1).map((callId) => extendCallReservation(knex(), callId)));
    expect(extended.some((seconds) => seconds !== undefined)).toBe(true);
    const stillHeld = await held(owner.id);
    expect(stillHeld).toBeGreaterThan(400_000);
    expect(stillHeld).toBeLessThanOrEqual(500_000 - 33_334);

    // Each runs past what it held: each is billed what it held, and the balance pays for all of it.
    for (const callId of live.slice(1)) await activities.finalizeCall({ callId, reason: 'balance_exhausted', endedAt: at(300) });
    expect(await balanceMicros(knex(), owner.id)).toBe(500_000 - 33_334 - stillHeld);
  });

  it('bills a call whose media session was lost up to the session\'s last report', async () => {
    const { owner, assistantId } = await ownerWithAssistant(5);
    const callId = (await liveCall(owner, assistantId))!;
    await knex()('calls').where({ id: callId }).update({ mediaSeenAt: new Date(at(37.5)) });
    // Found gone at the time limit's backstop: the end nobody reported is not what is billed.
    await activities.finalizeCall({ callId, reason: 'media_lost', endedAt: at(1215) });
    expect(await callRow(callId)).toMatchObject({ status: 'ended', endedAt: new Date(at(37.5)), duration: 38, totalCostMicros: 63_334 });

    // Any other end is as reported.
    const hungUp = (await liveCall(owner, assistantId))!;
    await knex()('calls').where({ id: hungUp }).update({ mediaSeenAt: new Date(at(10)) });
    await activities.finalizeCall({ callId: hungUp, reason: 'customer_hangup', endedAt: at(11) });
    expect(await callRow(hungUp)).toMatchObject({ duration: 11 });
  });
});
