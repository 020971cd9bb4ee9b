import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { endLostCalls } from '../../src/roles/lost-calls.ts';
import { signalCallAnswered } from '../../src/temporal/call-signals.ts';
import { workflowIds } from '../../src/temporal/names.ts';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/llm-server.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { connectMediaStream, L16_16K } from '../support/media-stream-client.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { energyVad, toneStt, toneTts } from '../support/speech-doubles.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

/** An address nothing listens on: the media process that held the call is gone. */
const DEAD_REPLICA = 'http://127.0.0.1:9';

/**
 * Calls whose media session is lost with its process (killed, or restarted without it): live sessions are
 * reported alive every two seconds, a worker ends the calls whose reports stopped, a media process starting at
 * an address ends those an earlier run there held, and such a call is billed to its session's last report.
 */
describe('calls whose media session is lost', () => {
  let llm: FakeLlmServer;
  let platform: TestPlatform;
  let owner: TestUser;
  let assistantId: number;

  beforeAll(async () => {
    llm = await startFakeLlmServer();
    llm.respond(() => ({ reply: 'We open at nine.' }));
    const tts = toneTts();
    platform = await startTestPlatform({
      worker: true,
      sweepLostCalls: true,
      media: true,
      env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test' },
      providers: { stt: toneStt({}), vad: energyVad(), tts: { forCode: () => tts, default: tts, codes: ['espeak'] } },
    });
    owner = await createTestUser(platform.database.knex, { balanceUsd: 5 });
    assistantId = (await createTestAssistant(platform, owner)).id;
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    await llm?.close();
  });

  const knex = () => platform.database.knex;
  const logger = createLogger({ log: { level: 'silent', pretty: false } });

  /**
   * A web call whose workflow heard it answered `answeredAgoMs` ago on a media process at `sessionUrl`, which
   * last reported it alive `seenAgoMs` ago.
   */
  async function answeredCall(answeredAgoMs: number, seenAgoMs: number, sessionUrl = DEAD_REPLICA): Promise<{ callId: number; answeredAt: Date; seenAt: Date }> {
    const created = await platform.request('POST', '/user/web-calls', { token: owner.token, body: { assistant_id: assistantId } });
    const callId = created.body.data.call_id as number;
    // One instant for both, so the seconds between them are exactly what the test says.
    const now = Date.now();
    const answeredAt = new Date(now - answeredAgoMs);
    const seenAt = new Date(now - seenAgoMs);
    await knex()('calls').where({ id: callId }).update({ mediaSessionUrl: sessionUrl, mediaSeenAt: seenAt, mediaTokenHash: null });
    await signalCallAnswered(platform.temporal, callId, answeredAt, logger);
    await expect.poll(async () => (await knex()('calls').where({ id: callId }).first()).status).toBe('in-progress');
    return { callId, answeredAt, seenAt };
  }

  const result = (callId: number) => platform.temporal.client.workflow.getHandle(workflowIds.call(callId)).result();

  it('ends a call whose session stopped reporting within seconds, billed to its last report', async () => {
    // Answered 20 s ago, last seen alive 11 s ago: lost (after 10 s without a report), 9 s to bill.
    const { callId, seenAt } = await answeredCall(20_000, 11_000);
    const started = Date.now();
    expect(await result(callId)).toEqual({ status: 'ended', reason: 'media_lost' });
    expect(Date.now() - started).toBeLessThan(8_000);
    const row = await knex()('calls').where({ id: callId }).first();
    expect(row).toMatchObject({ status: 'ended', endReason: 'media_lost', endedAt: seenAt, duration: 9, totalCostMicros: 15_000 });
    expect(row.mediaLostAt).toBeInstanceOf(Date);
  });

  it('leaves a call whose session reports alive, and ends at once the calls an earlier run of a media process held', async () => {
    const fresh = await answeredCall(5_000, 1_000);
    const restartedAt = new Date();
    // A process restarting at the dead replica's address holds none of its calls, however recent their reports.
    expect(await endLostCalls({ knex: knex(), temporal: platform.temporal, logger }, { sessionUrl: 'http://127.0.0.1:8', seenBefore: restartedAt })).toBe(0);
    expect(await endLostCalls({ knex: knex(), temporal: platform.temporal, logger }, { sessionUrl: DEAD_REPLICA, seenBefore: restartedAt })).toBe(1);
    expect(await result(fresh.callId)).toEqual({ status: 'ended', reason: 'media_lost' });
    expect(await knex()('calls').where({ id: fresh.callId }).first()).toMatchObject({ duration: 4, endedAt: fresh.seenAt });
  });

  it('reports a live session alive every two seconds, so a real call is never taken for lost', async () => {
    const created = await platform.request('POST', '/user/web-calls', { token: owner.token, body: { assistant_id: assistantId } });
    const callId = created.body.data.call_id as number;
    const caller = await connectMediaStream(created.body.data.websocket_url as string, L16_16K);
    caller.start();
    const seen = async () => (await knex()('calls').where({ id: callId }).first()).mediaSeenAt as Date | null;
    await expect.poll(seen).toBeInstanceOf(Date);
    const first = (await seen())!.getTime();
    await expect.poll(async () => (await seen())!.getTime(), { timeout: 5_000 }).toBeGreaterThan(first);
    caller.stop();
    expect(await result(callId)).toMatchObject({ reason: 'customer_hangup' });
    expect((await knex()('calls').where({ id: callId }).first()).mediaLostAt).toBeNull();
  });
});
