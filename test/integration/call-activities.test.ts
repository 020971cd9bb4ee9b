import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCallActivities } from '../../activities/calls.ts';
import { balanceMicros } from '../../src/billing/ledger.ts';
import { mediaControlToken } from '../../src/lib/media-control.ts';
import { decodeAppKey, generateAppKey } from '../../src/lib/secrets.ts';
import { createLogger } from '../../src/logger.ts';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/llm-server.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { spokenTurns } from '../support/calls.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { listenOnLoopback, type LoopbackServer } from '../support/ports.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

const appKey = generateAppKey();
const answeredAt = new Date('2026-11-23T12:00:00.000Z');
const turns = spokenTurns(answeredAt, [
  { role: 'assistant', text: 'Hello! How can I help?', fromMs: 500, toMs: 2000 },
  { role: 'user', text: 'I would like a demo.', fromMs: 3000, toMs: 4000 },
  { role: 'assistant', text: 'Booked for Monday.', fromMs: 5000, toMs: 6000 },
]);

/**
 * A media replica's control side: accepts hang-ups of `live` calls, fails those of `broken` ones with 500, and
 * answers 404 for any other; records what it got.
 */
async function startMediaControlPeer(live: Set<number>, broken: Set<number>) {
  const requests: { url: string; authorization: string | undefined; body: unknown }[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => { raw += chunk.toString(); });
    req.on('end', () => {
      requests.push({ url: req.url ?? '', authorization: req.headers.authorization, body: JSON.parse(raw || '{}') });
      const id = Number(/^\/media\/calls\/(\d+)\/hangup$/.exec(req.url ?? '')?.[1]);
      const status = live.has(id) ? 202 : broken.has(id) ? 500 : 404;
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return { requests, ...(await listenOnLoopback(server)) };
}

describe('call lifecycle activities', () => {
  let platform: TestPlatform;
  let llm: FakeLlmServer;
  let media: LoopbackServer & Awaited<ReturnType<typeof startMediaControlPeer>>;
  const live = new Set<number>();
  const broken = new Set<number>();
  let activities: ReturnType<typeof createCallActivities>;

  beforeAll(async () => {
    llm = await startFakeLlmServer();
    media = await startMediaControlPeer(live, broken);
    platform = await startTestPlatform({ env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test', APP_KEY: appKey } });
    activities = createCallActivities({
      knex: platform.database.knex,
      logger: createLogger(platform.config),
      config: platform.config,
      providers: platform.providers,
    });
  });
  afterAll(async () => {
    await platform.close();
    await llm.close();
    await media.close();
  });

  const knex = () => platform.database.knex;
  const callRow = (id: number) => knex()('calls').where({ id }).first();

  async function insertCall(owner: TestUser, assistantId: number, fields: Record<string, unknown> = {}): Promise<number> {
    const [row] = await knex()('calls').insert({ userId: owner.id, assistantId, assistantName: 'Test Assistant', type: 'web', ...fields }).returning('id');
    return Number(row.id);
  }

  async function ownerWithAssistant(balanceUsd: number, settings: Record<string, unknown> = {}) {
    const owner = await createTestUser(knex(), { balanceUsd });
    const assistant = await createTestAssistant(platform, owner, settings);
    return { owner, assistant };
  }

  describe('prepareCall', () => {
    it("answers the assistant's max_call_duration as the call's limit, and reserves a first minute for a call created without one", async () => {
      const { owner, assistant } = await ownerWithAssistant(5, { max_duration: 300 });
      const callId = await insertCall(owner, assistant.id);
      expect(await activities.prepareCall({ callId })).toEqual({ outcome: 'ready', maxSeconds: 300, phone: false, dial: false, endCallOnVoicemail: true });
      expect(await callRow(callId)).toMatchObject({ maxSeconds: 60, maxDurationSeconds: 300, limitReason: 'balance', reservedMicros: 100_000, pricePerMinuteMicros: 100_000 });
    });

    it('keeps the reservation a call was created with, and the limit of a call that reserved its whole limit before', async () => {
      const { owner, assistant } = await ownerWithAssistant(5, { max_duration: 600, end_call_on_voicemail: false });
      const created = await insertCall(owner, assistant.id, { maxSeconds: 120, maxDurationSeconds: 600, reservedMicros: 200_000, pricePerMinuteMicros: 100_000 });
      expect(await activities.prepareCall({ callId: created })).toEqual({ outcome: 'ready', maxSeconds: 600, phone: false, dial: false, endCallOnVoicemail: false });
      expect(await callRow(created)).toMatchObject({ maxSeconds: 120, reservedMicros: 200_000 });
      const before = await insertCall(owner, assistant.id, { maxSeconds: 150, limitReason: 'balance', reservedMicros: 250_000, pricePerMinuteMicros: 100_000 });
      expect(await activities.prepareCall({ callId: before })).toMatchObject({ outcome: 'ready', maxSeconds: 150 });
    });

    it('says a phone call is on the phone network, and that Parley dials the outbound ones', async () => {
      const { owner, assistant } = await ownerWithAssistant(5, { max_duration: 300 });
      expect(await activities.prepareCall({ callId: await insertCall(owner, assistant.id, { type: 'outbound' }) })).toMatchObject({ phone: true, dial: true });
      expect(await activities.prepareCall({ callId: await insertCall(owner, assistant.id, { type: 'inbound' }) })).toMatchObject({ phone: true, dial: false });
    });

    it('refuses a call the balance cannot pay a minute of', async () => {
      const { owner, assistant } = await ownerWithAssistant(0.09);
      const callId = await insertCall(owner, assistant.id);
      expect(await activities.prepareCall({ callId })).toEqual({ outcome: 'refused', reason: 'insufficient_balance' });
      expect(await callRow(callId)).toMatchObject({ maxSeconds: null, status: 'initiated' });
    });

    it('answers not_found for a call that no longer exists', async () => {
      await expect(activities.prepareCall({ callId: 987_654 })).rejects.toMatchObject({ code: 'not_found' });
    });
  });

  it('markAnswered moves the call in progress once, keeping the first answer time', async () => {
    const { owner, assistant } = await ownerWithAssistant(1);
    const callId = await insertCall(owner, assistant.id);
    await activities.markAnswered({ callId, at: answeredAt.toISOString() });
    await activities.markAnswered({ callId, at: '2026-11-23T12:30:00.000Z' });
    expect(await callRow(callId)).toMatchObject({ status: 'in-progress', answeredAt });
  });

  describe('finalizeCall', () => {
    it('stores the end, the transcript, the duration in started seconds and the cost, with one ledger entry', async () => {
      const { owner, assistant } = await ownerWithAssistant(1);
      const callId = await insertCall(owner, assistant.id, {
        status: 'in-progress', answeredAt, turns: JSON.stringify(turns), pricePerMinuteMicros: 100_000,
        mediaTokenHash: 'a'.repeat(64), mediaTokenExpiresAt: new Date(),
      });
      const before = await balanceMicros(knex(), owner.id);

      const finalized = await activities.finalizeCall({ callId, reason: 'customer_hangup', endedAt: '2026-11-23T12:01:01.200Z' });

      expect(finalized).toEqual({ status: 'ended_by_customer', evaluate: true });
      // 61.2 s are 62 started seconds; at 0.10 USD a minute, 103,333.3 micro-dollars, rounded up.
      expect(await callRow(callId)).toMatchObject({
        status: 'ended_by_customer',
        endReason: 'customer_hangup',
        endedAt: new Date('2026-11-23T12:01:01.200Z'),
        duration: 62,
        totalCostMicros: 103_334,
        transcript: 'AI: Hello! How can I help?\nCustomer: I would like a demo.\nAI: Booked for Monday.',
        mediaTokenHash: null,
        mediaTokenExpiresAt: null,
      });
      expect(await balanceMicros(knex(), owner.id)).toBe(before - 103_334);
      const entries = await knex()('balance_transactions').where({ idempotencyKey: `call-${callId}` });
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ userId: owner.id, amountMicros: -103_334, kind: 'call', reference: `call:${callId}` });
    });

    it('tells auto-recharge of the owner whose balance a call charged, and of no one for a call that cost nothing', async () => {
      const charged: number[] = [];
      const told = createCallActivities({
        knex: knex(),
        logger: createLogger(platform.config),
        config: platform.config,
        providers: platform.providers,
        afterCharge: (userId) => {
          charged.push(userId);
          return Promise.resolve();
        },
      });
      const { owner, assistant } = await ownerWithAssistant(1);
      const paid = await insertCall(owner, assistant.id, { status: 'in-progress', answeredAt, turns: JSON.stringify(turns), pricePerMinuteMicros: 60_000 });
      await told.finalizeCall({ callId: paid, reason: 'customer_hangup', endedAt: '2026-11-23T12:00:30.000Z' });
      const free = await insertCall(owner, assistant.id);
      await told.finalizeCall({ callId: free, reason: 'connect_timeout', endedAt: '2026-11-23T12:00:30.000Z' });
      expect(charged).toEqual([owner.id]);
    });

    it('charges once however often a retried attempt runs, and keeps the first end', async () => {
      const { owner, assistant } = await ownerWithAssistant(1);
      const callId = await insertCall(owner, assistant.id, { status: 'in-progress', answeredAt, turns: JSON.stringify(turns), pricePerMinuteMicros: 60_000 });
      const before = await balanceMicros(knex(), owner.id);

      const attempts = await Promise.all([1, 2, 3].map(() => activities.finalizeCall({ callId, reason: 'max_duration', endedAt: '2026-11-23T12:00:10.000Z' })));
      const late = await activities.finalizeCall({ callId, reason: 'error', endedAt: '2026-11-23T12:09:00.000Z' });

      expect(attempts).toEqual(Array(3).fill({ status: 'completed', evaluate: true }));
      expect(late).toEqual({ status: 'completed', evaluate: true });
      expect(await balanceMicros(knex(), owner.id)).toBe(before - 10_000);
      expect(await knex()('balance_transactions').where({ idempotencyKey: `call-${callId}` })).toHaveLength(1);
      expect(await callRow(callId)).toMatchObject({ duration: 10, totalCostMicros: 10_000, endReason: 'max_duration' });
    });

    it('fails a call that never connected, free and without an evaluation', async () => {
      const { owner, assistant } = await ownerWithAssistant(1);
      const callId = await insertCall(owner, assistant.id, { mediaTokenHash: 'b'.repeat(64), mediaTokenExpiresAt: new Date() });
      const before = await balanceMicros(knex(), owner.id);

      expect(await activities.finalizeCall({ callId, reason: 'connect_timeout', endedAt: new Date().toISOString() })).toEqual({ status: 'failed', evaluate: false });
      expect(await callRow(callId)).toMatchObject({ status: 'failed', duration: 0, totalCostMicros: 0, endReason: 'connect_timeout', mediaTokenHash: null });
      expect(await balanceMicros(knex(), owner.id)).toBe(before);
      expect(await knex()('balance_transactions').where({ idempotencyKey: `call-${callId}` })).toHaveLength(0);
    });

    it('does not ask for an evaluation when the assistant turned it off', async () => {
      const { owner, assistant } = await ownerWithAssistant(1, { post_call_evaluation: false });
      const callId = await insertCall(owner, assistant.id, { status: 'in-progress', answeredAt, turns: JSON.stringify(turns) });
      expect(await activities.finalizeCall({ callId, reason: 'assistant_end_call', endedAt: '2026-11-23T12:00:30.000Z' })).toEqual({ status: 'ended_by_assistant', evaluate: false });
    });

    it('keeps who answered an outbound call, says unknown when nobody judged it, and leaves web and inbound calls unjudged', async () => {
      const { owner, assistant } = await ownerWithAssistant(1);
      const answered = { status: 'in-progress', answeredAt };
      const judged = await insertCall(owner, assistant.id, { type: 'outbound', ...answered });
      await activities.recordAnsweredBy({ callId: judged, answeredBy: 'machine' });
      await activities.finalizeCall({ callId: judged, reason: 'voicemail', endedAt: '2026-11-23T12:00:20.000Z' });
      expect(await callRow(judged)).toMatchObject({ answeredBy: 'machine', status: 'ended_by_assistant', endReason: 'voicemail' });

      const unjudged = await insertCall(owner, assistant.id, { type: 'outbound', ...answered });
      await activities.finalizeCall({ callId: unjudged, reason: 'customer_hangup', endedAt: '2026-11-23T12:00:02.000Z' });
      expect(await callRow(unjudged)).toMatchObject({ answeredBy: 'unknown' });
      const neverAnswered = await insertCall(owner, assistant.id, { type: 'outbound' });
      await activities.finalizeCall({ callId: neverAnswered, reason: 'busy', endedAt: '2026-11-23T12:00:02.000Z' });
      expect(await callRow(neverAnswered)).toMatchObject({ answeredBy: null });

      for (const type of ['web', 'inbound']) {
        const callId = await insertCall(owner, assistant.id, { type, ...answered });
        await activities.recordAnsweredBy({ callId, answeredBy: 'machine' });
        await activities.finalizeCall({ callId, reason: 'customer_hangup', endedAt: '2026-11-23T12:00:02.000Z' });
        expect(await callRow(callId), type).toMatchObject({ answeredBy: null });
      }
      await expect(activities.recordAnsweredBy({ callId: 987_656, answeredBy: 'human' })).rejects.toMatchObject({ code: 'not_found' });
    });

    it('answers deleted for a call that no longer exists', async () => {
      expect(await activities.finalizeCall({ callId: 987_655, reason: 'customer_hangup', endedAt: new Date().toISOString() })).toEqual({ status: 'deleted', evaluate: false });
    });
  });

  describe('evaluateCall', () => {
    async function endedCall(settings: Record<string, unknown> = {}) {
      const { owner, assistant } = await ownerWithAssistant(1, { system_prompt: 'Book a demo for Monday.', ...settings });
      const callId = await insertCall(owner, assistant.id, { status: 'in-progress', answeredAt, turns: JSON.stringify(turns) });
      await activities.finalizeCall({ callId, reason: 'customer_hangup', endedAt: '2026-11-23T12:00:20.000Z' });
      return callId;
    }

    it('has the model fill the default schema through a forced function call, with the assistant\'s model', async () => {
      const callId = await endedCall();
      llm.script({ toolCalls: [{ name: 'record_call_evaluation', arguments: { status: true, summary: 'A demo was booked for Monday.' } }] });

      expect(await activities.evaluateCall({ callId })).toEqual({ evaluated: true });

      expect((await callRow(callId)).evaluation).toEqual({ status: true, summary: 'A demo was booked for Monday.' });
      const request = llm.requests.at(-1);
      expect(request?.model).toBe('gpt-4o-mini');
      expect(request?.tool_choice).toEqual({ type: 'function', function: { name: 'record_call_evaluation' } });
      expect(request?.tools?.[0]?.function.parameters).toMatchObject({ required: ['status', 'summary'], properties: { status: { type: 'boolean' }, summary: { type: 'string' } } });
      expect(request?.messages[0]?.content).toContain('Book a demo for Monday.');
      expect(request?.messages[1]?.content).toBe('Transcript:\nAI: Hello! How can I help?\nCustomer: I would like a demo.\nAI: Booked for Monday.');
    });

    it("fills the assistant's own post_call_schema, keyed by name", async () => {
      const callId = await endedCall({
        post_call_schema: [
          { name: 'demo_booked', type: 'bool', description: 'Whether a demo was booked' },
          { name: 'day', type: 'string', description: 'The day of the demo' },
          { name: 'seats', type: 'number', description: 'Seats wanted' },
        ],
      });
      llm.script({ toolCalls: [{ name: 'record_call_evaluation', arguments: { demo_booked: true, day: 'Monday' } }] });

      expect(await activities.evaluateCall({ callId })).toEqual({ evaluated: true });
      expect((await callRow(callId)).evaluation).toEqual({ demo_booked: true, day: 'Monday', seats: null });
      expect(Object.keys(llm.requests.at(-1)?.tools?.[0]?.function.parameters.properties as object)).toEqual(['demo_booked', 'day', 'seats']);
    });

    it('leaves the evaluation null when the model fails or answers without the call', async () => {
      const callId = await endedCall();
      llm.script({ status: 400, error: 'context length exceeded' });
      expect(await activities.evaluateCall({ callId })).toEqual({ evaluated: false });
      llm.script({ reply: 'The call went well.' });
      expect(await activities.evaluateCall({ callId })).toEqual({ evaluated: false });
      expect((await callRow(callId)).evaluation).toBeNull();
    });
  });

  describe('requestHangup', () => {
    it('asks the replica holding the session, with the media control token and the reason', async () => {
      const { owner, assistant } = await ownerWithAssistant(1);
      const callId = await insertCall(owner, assistant.id, { mediaSessionUrl: `${media.url}/` });
      live.add(callId);

      expect(await activities.requestHangup({ callId, reason: 'max_duration' })).toBe('requested');
      expect(media.requests.at(-1)).toEqual({
        url: `/media/calls/${callId}/hangup`,
        authorization: `Bearer ${mediaControlToken(decodeAppKey(appKey) as Buffer)}`,
        body: { reason: 'max_duration' },
      });
    });

    it('finds the session gone on a 404, an unreachable replica, or none recorded', async () => {
      const { owner, assistant } = await ownerWithAssistant(1);
      const unknown = await insertCall(owner, assistant.id, { mediaSessionUrl: media.url });
      const unreachable = await insertCall(owner, assistant.id, { mediaSessionUrl: 'http://127.0.0.1:9' });
      const never = await insertCall(owner, assistant.id);
      for (const callId of [unknown, unreachable, never]) expect(await activities.requestHangup({ callId, reason: 'operator' }), String(callId)).toBe('gone');
    });

    it('fails, to be retried, when the replica refuses otherwise', async () => {
      const { owner, assistant } = await ownerWithAssistant(1);
      const callId = await insertCall(owner, assistant.id, { mediaSessionUrl: media.url });
      broken.add(callId);
      await expect(activities.requestHangup({ callId, reason: 'operator' })).rejects.toThrow(`The media gateway refused to hang up call ${callId}: HTTP 500.`);
    });
  });
});
