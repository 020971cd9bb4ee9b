import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PHONE_STREAM_PATH, phoneStreamToken } from '../../src/lib/media-control.ts';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/llm-server.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { connectMediaStream, MULAW_8K } from '../support/media-stream-client.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { speechInstalled, speechSkipReason } from '../support/speech.ts';
import { createTestUser } from '../support/users.ts';

/** The media gateway's side of phone calls: the streams a carrier opens for the calls Parley dialled. */
describe.skipIf(!speechInstalled)(`a carrier's media stream${speechInstalled ? '' : ` (${speechSkipReason})`}`, () => {
  let llm: FakeLlmServer;
  let platform: TestPlatform;

  beforeAll(async () => {
    llm = await startFakeLlmServer();
    platform = await startTestPlatform({ media: true, env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test' } });
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    await llm?.close();
  });

  const phoneCall = async () => {
    const owner = await createTestUser(platform.database.knex, { balanceUsd: 5 });
    const assistant = await createTestAssistant(platform, owner, { initial_message: 'Hello from Parley.' });
    const [row] = await platform.database.knex('calls').insert({
      userId: owner.id, assistantId: assistant.id, assistantName: 'Test Assistant', type: 'outbound', maxSeconds: 60,
      assistantPhoneNumber: '+14155550100', clientPhoneNumber: '+14155550123',
    }).returning('id');
    return Number((row as { id: number }).id);
  };

  it('serves the call whose signed parameters the stream starts with, in the carrier\'s 8 kHz mu-law, without the browser\'s transcript', async () => {
    const callId = await phoneCall();
    const callee = await connectMediaStream(`${platform.mediaUrl}${PHONE_STREAM_PATH}`, MULAW_8K);
    callee.start({ callId: String(callId), token: phoneStreamToken(platform.providers.secrets, callId) });
    await callee.waitFor(() => callee.playedSound.length > 10, 20_000, 'the greeting');
    expect(callee.received.filter((message) => message.event === 'media').every((message) => message.bytes === 160)).toBe(true);
    expect(callee.received.some((message) => message.event === 'transcript')).toBe(false);
    expect(await platform.database.knex('calls').where({ id: callId }).first()).toMatchObject({ mediaSessionUrl: expect.stringContaining('http') });
    callee.stop();
    await callee.closed;
  });

  it('refuses a stream whose credential is not the call\'s', async () => {
    const callId = await phoneCall();
    const other = await phoneCall();
    const forged: Record<string, string>[] = [{ callId: String(callId), token: phoneStreamToken(platform.providers.secrets, other) }, { callId: String(callId) }, {}];
    for (const parameters of forged) {
      const forger = await connectMediaStream(`${platform.mediaUrl}${PHONE_STREAM_PATH}`, MULAW_8K);
      forger.start(parameters);
      const closed = await forger.closed;
      expect(closed.code, JSON.stringify(parameters)).toBe(4401);
    }
    expect(await platform.database.knex('calls').where({ id: callId }).first()).toMatchObject({ mediaSessionUrl: null });
  });
});
