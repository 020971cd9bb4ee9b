import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SupervisorTransfer } from '../../src/agent/ports.ts';
import { twilioSignatureOf } from '../../src/api/middleware/signatures.ts';
import { RejectedError } from '../../src/lib/errors.ts';
import { HOLD_MUSIC_FULL_LEVEL, wavPeak } from '../../src/providers/telephony/hold-music.ts';
import { holdTwiml } from '../../src/providers/telephony/twilio-calls.ts';
import { createTwilioTelephony } from '../../src/providers/telephony/twilio.ts';
import type { TelephonyProvider } from '../../src/providers/telephony/types.ts';
import { GIVE_UP_TWIML, joinRoomTwiml, supervisorTwiml } from '../../src/resources/carrier-callbacks/warm-transfers.ts';
import { phoneLine } from '../../src/roles/call-transfers.ts';
import { startFakeTwilio, type FakeTwilio } from '../fakes/twilio/server.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

const PUBLIC_URL = 'https://parley.example.test';
const BRIEFING = 'Hello, I have a caller for you. Sam wants a refund for order 4471.';

/**
 * A warm transfer on Twilio, the standard way: the supervisor is called with the briefing's TwiML, the caller
 * moved into a conference that plays Parley's hold music; Twilio's signed callbacks then bridge the briefed
 * supervisor (the caller moved again, to hear the connected message and join) or, the supervisor not taking
 * the call, move the caller to an apology. The REST API is the fake's, the callbacks Parley's own routes.
 */
describe('warm transfers to a supervisor on Twilio', () => {
  let twilio: FakeTwilio;
  let telephony: TelephonyProvider;
  let platform: TestPlatform;
  let owner: TestUser;
  let outbound = { id: 0, phoneNumber: '' };

  beforeAll(async () => {
    twilio = await startFakeTwilio();
    telephony = createTwilioTelephony({ settings: { provider: 'twilio', accountSid: twilio.accountSid, authToken: twilio.authToken, apiBase: twilio.url }, publicUrl: PUBLIC_URL });
    platform = await startTestPlatform({ env: { PUBLIC_URL }, providers: { telephony } });
    owner = await createTestUser(platform.database.knex, { balanceUsd: 5 });
    const [offer] = await telephony.searchNumbers({ countryCode: 'US', limit: 1 });
    await telephony.provisionNumber({ phoneNumber: offer!.phoneNumber, idempotencyKey: 'warm-transfers' });
    const [row] = await platform.database.knex('phone_numbers')
      .insert({ userId: owner.id, phoneNumber: offer!.phoneNumber, countryCode: 'US', type: 'normal', status: 'active' }).returning('id');
    outbound = { id: Number((row as { id: number }).id), phoneNumber: offer!.phoneNumber };
  });
  afterAll(async () => {
    await platform?.close();
    await twilio?.close();
  });

  const knex = () => platform.database.knex;
  const transfer = (overrides: Partial<SupervisorTransfer> = {}): SupervisorTransfer => ({
    supervisorPhone: '+14155550142', outboundPhoneId: outbound.id, callerIdMode: 'outbound_number', customCallerId: undefined, holdMusicVolume: 80,
    holdMessage: 'Please hold.', summaryInstructions: 'Summarise.', briefingInitialMessage: 'Hello, I have a caller for you.', connectedMessage: 'You are now connected.',
    ...overrides,
  });
  /** A caller on the line with the assistant: a live call at the fake, and its record at Parley. */
  const liveCall = async () => {
    const { providerCallId } = await telephony.calls!.placeCall({
      from: outbound.phoneNumber, to: '+14155550123', stream: { url: 'wss://media.parley.example.test/media/phone-call', parameters: {} },
      statusCallbackUrl: `${PUBLIC_URL}/api/telephony/twilio/status`, ringTimeoutSeconds: 30,
    }, { key: randomUUID(), since: new Date(), retried: false });
    twilio.calls.answer(providerCallId);
    const [row] = await knex()('calls').insert({
      userId: owner.id, assistantName: 'Receptionist', type: 'outbound', status: 'in-progress', assistantPhoneNumber: outbound.phoneNumber, clientPhoneNumber: '+14155550123', providerCallId,
    }).returning('id');
    return { callId: Number((row as { id: number }).id), providerCallId };
  };
  const line = (callId: number) => phoneLine({ knex: knex(), telephony, publicUrl: PUBLIC_URL }, { id: callId, userId: owner.id });
  const transfersOf = async (callId: number) => (await knex()('calls').where({ id: callId }).first()).transfers as Record<string, unknown>[];
  /** The supervisor's call as Twilio placed it: the last one created. */
  const supervisorCall = () => {
    const created = twilio.requests.filter((request) => request.method === 'POST' && request.path.endsWith('/Calls.json')).at(-1)!;
    return { form: created.form, call: [...twilio.calls.calls.values()].at(-1)! };
  };
  /** Posts a callback as Twilio does: a form body, signed over the URL Parley gave and the parameters. */
  const callback = (url: string, params: Record<string, string>, authToken = twilio.authToken) => {
    const form = new URLSearchParams({ AccountSid: twilio.accountSid, ...params });
    return fetch(`${platform.baseUrl}${url.slice(PUBLIC_URL.length)}`, {
      method: 'POST',
      body: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignatureOf(authToken, url, form) },
    });
  };

  it('calls the supervisor with the briefing, holds the caller with the music, then bridges them after the connected message', async () => {
    const { callId, providerCallId } = await liveCall();
    await line(callId).warmTransfer({ transfer: transfer(), briefing: BRIEFING, summarySource: 'model' });

    const bridgeUrl = `${PUBLIC_URL}/api/telephony/twilio/warm-transfer/bridge?call_id=${callId}`;
    const statusUrl = `${PUBLIC_URL}/api/telephony/twilio/warm-transfer/status?call_id=${callId}`;
    const supervisor = supervisorCall();
    expect(Object.fromEntries(supervisor.form)).toEqual({
      To: '+14155550142', From: outbound.phoneNumber, Twiml: supervisorTwiml(BRIEFING, bridgeUrl), Timeout: '30', StatusCallback: statusUrl, StatusCallbackMethod: 'POST',
    });
    const room = `parley-call-${callId}`;
    const holdMusicUrl = `${PUBLIC_URL}/api/telephony/twilio/hold-music?volume=80`;
    // The caller's stream ended: the call now waits in the room.
    expect(twilio.calls.calls.get(providerCallId)!.twiml).toBe(holdTwiml(room, holdMusicUrl));
    expect(await transfersOf(callId)).toEqual([{
      type: 'supervisor', to: '+14155550142', caller_id: outbound.phoneNumber, briefing: BRIEFING, summary_source: 'model', connected_message: 'You are now connected.',
      hold_music_volume: 80, status: 'requested', requested_at: expect.any(String), connected_at: null, ended_at: null, duration: null, error: null,
      supervisor_call_id: supervisor.call.sid,
    }]);

    // Twilio fetches the wait URL: the music at the volume, no signature needed.
    const music = await fetch(`${platform.baseUrl}${holdMusicUrl.slice(PUBLIC_URL.length)}`);
    expect(music.status).toBe(200);
    expect(music.headers.get('content-type')).toBe('audio/wav');
    expect(wavPeak(Buffer.from(await music.arrayBuffer()))).toBeCloseTo(0.8 * HOLD_MUSIC_FULL_LEVEL, 3);
    expect((await fetch(`${platform.baseUrl}/api/telephony/twilio/hold-music?volume=101`)).status).toBe(422);

    // The supervisor answers and hears the briefing; its <Redirect> comes to Parley, which moves the caller.
    twilio.calls.answer(supervisor.call.sid);
    expect((await callback(bridgeUrl, { CallSid: supervisor.call.sid, CallStatus: 'in-progress' }, 'forged')).status).toBe(403);
    const bridged = await callback(bridgeUrl, { CallSid: supervisor.call.sid, CallStatus: 'in-progress' });
    expect(bridged.status).toBe(200);
    expect(await bridged.text()).toBe(joinRoomTwiml(room));
    expect(twilio.calls.calls.get(providerCallId)!.twiml).toBe(joinRoomTwiml(room, 'You are now connected.'));
    expect(await transfersOf(callId)).toMatchObject([{ status: 'connected', connected_at: expect.any(String) }]);

    const done = await callback(statusUrl, { CallSid: supervisor.call.sid, CallStatus: 'completed', CallDuration: '95' });
    expect(done.status).toBe(200);
    expect(await transfersOf(callId)).toMatchObject([{ status: 'completed', duration: 95, ended_at: expect.any(String), error: null }]);
    const shown = await platform.request('GET', `/user/calls/${callId}`, { token: owner.token });
    expect(shown.body).toMatchObject({ transfers: [{ type: 'supervisor', to: '+14155550142', briefing: BRIEFING, status: 'completed', duration: 95 }] });
  });

  it('moves the caller to an apology when the supervisor does not answer, in silence when there is no music', async () => {
    const { callId, providerCallId } = await liveCall();
    await line(callId).warmTransfer({ transfer: transfer({ holdMusicVolume: undefined }), briefing: BRIEFING, summarySource: 'last_turns' });
    expect(twilio.calls.calls.get(providerCallId)!.twiml).toBe(holdTwiml(`parley-call-${callId}`, undefined));
    const supervisor = supervisorCall();
    const statusUrl = `${PUBLIC_URL}/api/telephony/twilio/warm-transfer/status?call_id=${callId}`;
    // Progress before the end changes nothing.
    await callback(statusUrl, { CallSid: supervisor.call.sid, CallStatus: 'ringing' });
    expect(await transfersOf(callId)).toMatchObject([{ status: 'requested' }]);
    await callback(statusUrl, { CallSid: supervisor.call.sid, CallStatus: 'no-answer' });
    expect(await transfersOf(callId)).toMatchObject([{ status: 'no-answer', hold_music_volume: null, summary_source: 'last_turns', connected_at: null, error: null }]);
    expect(twilio.calls.calls.get(providerCallId)!.twiml).toBe(GIVE_UP_TWIML);
  });

  it('tells a supervisor who answers after the caller hung up, and records the transfer as canceled', async () => {
    const { callId, providerCallId } = await liveCall();
    await line(callId).warmTransfer({ transfer: transfer(), briefing: BRIEFING, summarySource: 'model' });
    twilio.calls.complete(providerCallId, 20);
    const supervisor = supervisorCall();
    const answer = await callback(`${PUBLIC_URL}/api/telephony/twilio/warm-transfer/bridge?call_id=${callId}`, { CallSid: supervisor.call.sid, CallStatus: 'in-progress' });
    expect(await answer.text()).toMatch(/<Say>Sorry, the caller has already hung up\. Goodbye\.<\/Say><Hangup\/>/);
    expect(await transfersOf(callId)).toMatchObject([{ status: 'canceled', error: 'The caller hung up before the supervisor was connected.' }]);
    // The supervisor's call ending afterwards changes nothing.
    await callback(`${PUBLIC_URL}/api/telephony/twilio/warm-transfer/status?call_id=${callId}`, { CallSid: supervisor.call.sid, CallStatus: 'completed', CallDuration: '9' });
    expect(await transfersOf(callId)).toMatchObject([{ status: 'canceled', duration: null }]);
  });

  it("has the briefing read to the supervisor in the call's language", async () => {
    const { callId } = await liveCall();
    await line(callId).warmTransfer({ transfer: transfer(), briefing: 'Hallo, ein Anrufer für Sie.', summarySource: 'model', language: 'de-DE' });
    const twiml = supervisorCall().form.get('Twiml');
    expect(twiml).toBe(supervisorTwiml('Hallo, ein Anrufer für Sie.', `${PUBLIC_URL}/api/telephony/twilio/warm-transfer/bridge?call_id=${callId}`, 'de-DE'));
    expect(twiml).toContain('<Say language="de-DE">Hallo, ein Anrufer für Sie.</Say>');
  });

  it('calls the supervisor off when the caller hangs up on hold', async () => {
    const { callId, providerCallId } = await liveCall();
    await line(callId).warmTransfer({ transfer: transfer(), briefing: BRIEFING, summarySource: 'model' });
    const supervisor = supervisorCall();
    twilio.calls.calls.get(supervisor.call.sid)!.status = 'ringing';
    // The caller's own status callback: the number's, naming the call by its sid.
    twilio.calls.complete(providerCallId, 30);
    await callback(`${PUBLIC_URL}/api/telephony/twilio/status`, { CallSid: providerCallId, CallStatus: 'completed', CallDuration: '30' });
    expect(twilio.calls.calls.get(supervisor.call.sid)!.status).toBe('canceled');
    expect(await transfersOf(callId)).toMatchObject([{ status: 'canceled', error: 'The caller hung up before the supervisor was connected.' }]);
    // Twilio's word that the supervisor's call was canceled changes nothing more.
    await callback(`${PUBLIC_URL}/api/telephony/twilio/warm-transfer/status?call_id=${callId}`, { CallSid: supervisor.call.sid, CallStatus: 'canceled' });
    expect(await transfersOf(callId)).toMatchObject([{ status: 'canceled' }]);
  });

  it('leaves the caller with the assistant when Twilio will not call the supervisor, and records why', async () => {
    const { callId, providerCallId } = await liveCall();
    const before = twilio.calls.calls.get(providerCallId)!.twiml;
    // Twilio calls from the account's numbers and verified caller IDs only: not from the customer's number.
    const refused = line(callId).warmTransfer({ transfer: transfer({ callerIdMode: 'customer_number' }), briefing: BRIEFING, summarySource: 'model' });
    await expect(refused).rejects.toThrow(RejectedError);
    await expect(refused).rejects.toThrow(/Twilio would not call the supervisor at \+14155550142: .*not yet verified.* \(error 21210\)/);
    expect(twilio.calls.calls.get(providerCallId)!.twiml).toBe(before);
    expect(await transfersOf(callId)).toMatchObject([{ status: 'failed', caller_id: '+14155550123', error: expect.stringMatching(/error 21210/) }]);
    const custom = line(callId).warmTransfer({ transfer: transfer({ callerIdMode: 'custom', customCallerId: '+14155550177' }), briefing: BRIEFING, summarySource: 'model' });
    await expect(custom).rejects.toThrow(RejectedError);
    expect((await transfersOf(callId))[1]).toMatchObject({ status: 'failed', caller_id: '+14155550177' });
  });
});
