import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { twilioSignatureOf } from '../../src/api/middleware/signatures.ts';
import { RejectedError } from '../../src/lib/errors.ts';
import type { TelephonyProvider, TransferRequest } from '../../src/providers/telephony/types.ts';
import { TRANSFER_FAILED } from '../../src/resources/carrier-callbacks/transfers.ts';
import { loadAgentProfile } from '../../src/resources/assistants/profile.ts';
import { loadVoiceSettings } from '../../src/resources/assistants/voice-profile.ts';
import { assistantLine, phoneLine } from '../../src/roles/call-transfers.ts';
import type { AssistantSetup } from '../../src/voice/run.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

const PUBLIC_URL = 'https://parley.example.test';

/** A carrier that records the transfers it is asked for, refusing them when told to. */
function transferringCarrier() {
  const transfers: { providerCallId: string; request: TransferRequest }[] = [];
  let refusal: Error | undefined;
  const telephony: TelephonyProvider = {
    name: 'twilio',
    searchNumbers: () => Promise.resolve([]),
    provisionNumber: () => Promise.reject(new Error('not asked here')),
    releaseNumber: () => Promise.resolve(),
    configureNumber: () => Promise.reject(new Error('not asked here')),
    callbackToken: () => 'callback-token',
    calls: {
      placeCall: () => Promise.reject(new Error('not asked here')),
      endCall: () => Promise.resolve(),
      transferCall(providerCallId, request) {
        transfers.push({ providerCallId, request });
        return refusal ? Promise.reject(refusal) : Promise.resolve();
      },
      callPrice: () => Promise.resolve(undefined),
    },
  };
  return { telephony, transfers, refuseWith: (error: Error | undefined) => { refusal = error; } };
}

/**
 * Transfers to a number as the call record shows them: asked for by the media role's line (under the account's
 * dialing rules), their outcome and whisper served to the carrier through its signed callbacks.
 */
describe('transfers of phone calls to numbers', () => {
  let platform: TestPlatform;
  let owner: TestUser;
  /** The owner's number: its own, as on PostgreSQL the test files share one database and its numbers. */
  let ownNumber: string;
  const carrier = transferringCarrier();

  beforeAll(async () => {
    platform = await startTestPlatform({ env: { PUBLIC_URL }, providers: { telephony: carrier.telephony } });
    owner = await createTestUser(platform.database.knex, { balanceUsd: 5 });
    ownNumber = `+16283${String(owner.id).padStart(6, '0').slice(-6)}`;
    await platform.database.knex('phone_numbers').insert({ userId: owner.id, phoneNumber: ownNumber, countryCode: 'US', type: 'normal', status: 'active' });
  });
  afterAll(() => platform.close());

  const knex = () => platform.database.knex;
  const liveCall = async (providerCallId: string | null = `CA${crypto.randomUUID().replace(/-/g, '')}`) => {
    const [row] = await knex()('calls').insert({
      userId: owner.id, assistantName: 'Receptionist', type: 'inbound', status: 'in-progress', assistantPhoneNumber: ownNumber, clientPhoneNumber: '+14155550123', providerCallId,
    }).returning('id');
    return Number((row as { id: number }).id);
  };
  const line = (callId: number) => phoneLine({ knex: knex(), telephony: carrier.telephony, publicUrl: PUBLIC_URL }, { id: callId, userId: owner.id });
  const transfersOf = async (callId: number) => (await knex()('calls').where({ id: callId }).first()).transfers as Record<string, unknown>[];
  /** Posts a carrier callback as Twilio does: a form body, signed over the URL Parley gave and the parameters. */
  const callback = (path: string, params: Record<string, string>, authToken = 'callback-token') => {
    const form = new URLSearchParams({ AccountSid: `AC${'1'.repeat(32)}`, CallSid: `CA${'2'.repeat(32)}`, ...params });
    return fetch(`${platform.baseUrl}${path}`, {
      method: 'POST',
      body: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignatureOf(authToken, `${PUBLIC_URL}${path}`, form) },
    });
  };

  it('transfers only to valid numbers in the countries of the account\'s own numbers', async () => {
    const phone = line(await liveCall());
    await expect(phone.checkTransfer('+14155550142')).resolves.toBeUndefined();
    await expect(phone.checkTransfer('+442079460000')).rejects.toThrow('Calls to GB numbers are not allowed for this account.');
    await expect(phone.checkTransfer('+1415')).rejects.toThrow('+1415 is not a valid phone number.');
    // A SIP URI (a `custom_sip` supervisor) is reached only by the SIP gateway, on a call through a trunk.
    await expect(phone.checkTransfer('sip:desk@pbx.example.com')).rejects.toThrow('A SIP address can only be called from a call that came through a SIP trunk.');
    const trunkCall = await liveCall(`SIP${'a'.repeat(32)}`);
    const trunkLine = phoneLine({ knex: knex(), telephony: carrier.telephony, sipTrunks: carrier.telephony.calls!, publicUrl: PUBLIC_URL }, { id: trunkCall, userId: owner.id });
    await expect(trunkLine.checkTransfer('sip:desk@pbx.example.com')).resolves.toBeUndefined();
    await expect(phone.transfer({ to: '+442079460000', whisper: undefined })).rejects.toThrow(RejectedError);
    expect(carrier.transfers).toEqual([]);
  });

  it('records the transfer, asks the carrier with the call\'s callbacks, and settles it with the carrier\'s outcome', async () => {
    const callId = await liveCall('CA00000000000000000000000000000042');
    await line(callId).transfer({ to: '+14155550142', whisper: 'A caller about a booking.' });
    expect(carrier.transfers.at(-1)).toEqual({
      providerCallId: 'CA00000000000000000000000000000042',
      request: {
        to: '+14155550142', callerId: ownNumber, ringTimeoutSeconds: 30,
        whisperUrl: `${PUBLIC_URL}/api/telephony/twilio/whisper?call_id=${callId}`, outcomeUrl: `${PUBLIC_URL}/api/telephony/twilio/transfer?call_id=${callId}`,
      },
    });
    expect(await transfersOf(callId)).toEqual([{
      type: 'phone', to: '+14155550142', warm: true, message: 'A caller about a booking.', status: 'requested',
      requested_at: expect.any(String), ended_at: null, duration: null, error: null,
    }]);

    // The person answering hears the message; then the bridged call ends and Twilio posts the <Dial action>.
    const whisper = await callback(`/api/telephony/twilio/whisper?call_id=${callId}`, { CallStatus: 'in-progress' });
    expect(whisper.status).toBe(200);
    expect(whisper.headers.get('content-type')).toMatch(/xml/);
    expect(await whisper.text()).toBe('<?xml version="1.0" encoding="UTF-8"?><Response><Say>A caller about a booking.</Say></Response>');
    const outcome = await callback(`/api/telephony/twilio/transfer?call_id=${callId}`, { DialCallStatus: 'completed', DialCallDuration: '42', DialCallSid: `CA${'3'.repeat(32)}` });
    expect(await outcome.text()).toBe('<?xml version="1.0" encoding="UTF-8"?><Response><Hangup/></Response>');
    expect(await transfersOf(callId)).toMatchObject([{ status: 'completed', duration: 42, ended_at: expect.any(String) }]);

    const shown = await platform.request('GET', `/user/calls/${callId}`, { token: owner.token });
    expect(shown.body).toMatchObject({ transfers: [{ type: 'phone', to: '+14155550142', warm: true, status: 'completed', duration: 42 }] });
  });

  it('tells the caller when nobody took the transfer, and keeps the carrier\'s word for it', async () => {
    const callId = await liveCall();
    await line(callId).transfer({ to: '+14155550181', whisper: undefined });
    expect(carrier.transfers.at(-1)!.request).not.toHaveProperty('whisperUrl');
    const whisper = await callback(`/api/telephony/twilio/whisper?call_id=${callId}`, {});
    expect(await whisper.text()).toBe('<?xml version="1.0" encoding="UTF-8"?><Response></Response>');
    const outcome = await callback(`/api/telephony/twilio/transfer?call_id=${callId}`, { DialCallStatus: 'busy', DialCallDuration: '0' });
    expect(await outcome.text()).toBe(`<?xml version="1.0" encoding="UTF-8"?><Response><Say>${TRANSFER_FAILED}</Say><Hangup/></Response>`);
    expect(await transfersOf(callId)).toMatchObject([{ status: 'busy', warm: false, message: null, duration: 0 }]);
    // A repeated outcome finds nothing waiting and changes nothing.
    await callback(`/api/telephony/twilio/transfer?call_id=${callId}`, { DialCallStatus: 'completed' });
    expect(await transfersOf(callId)).toMatchObject([{ status: 'busy' }]);
  });

  it('records a transfer the carrier refused as failed, with why, and one it was never asked for not at all', async () => {
    const callId = await liveCall();
    carrier.refuseWith(new RejectedError('Twilio would not transfer the call to +14155550142: Call is not in-progress.'));
    await expect(line(callId).transfer({ to: '+14155550142', whisper: undefined })).rejects.toThrow(/not in-progress/);
    carrier.refuseWith(undefined);
    expect(await transfersOf(callId)).toMatchObject([{ status: 'failed', error: 'Twilio would not transfer the call to +14155550142: Call is not in-progress.' }]);

    // A call the carrier has not named yet cannot be transferred.
    const unnamed = await liveCall(null);
    const asked = carrier.transfers.length;
    await expect(line(unnamed).transfer({ to: '+14155550142', whisper: undefined })).rejects.toThrow(/cannot be transferred/);
    expect(carrier.transfers).toHaveLength(asked);
    expect(await transfersOf(unnamed)).toEqual([]);
  });

  it('refuses forged callbacks with 403 before reading them', async () => {
    const callId = await liveCall();
    await line(callId).transfer({ to: '+14155550142', whisper: 'Secret briefing.' });
    const forged = await callback(`/api/telephony/twilio/transfer?call_id=${callId}`, { DialCallStatus: 'completed' }, 'not-the-token');
    expect(forged.status).toBe(403);
    const peek = await callback(`/api/telephony/twilio/whisper?call_id=${callId}`, {}, 'not-the-token');
    expect(peek.status).toBe(403);
    expect(await peek.text()).not.toContain('Secret briefing');
    expect(await transfersOf(callId)).toMatchObject([{ status: 'requested' }]);
  });
});

describe('handing calls over to another assistant', () => {
  let platform: TestPlatform;

  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(() => platform.close());

  const knex = () => platform.database.knex;
  /** An assistant as the media role loads it, without the voice selection the gateway adds. */
  const load = async (assistantId: number): Promise<AssistantSetup | undefined> => {
    const [profile, settings] = await Promise.all([loadAgentProfile({ knex: knex(), secrets: platform.providers.secrets }, { id: assistantId }), loadVoiceSettings(knex(), { id: assistantId })]);
    if (!profile || !settings) return undefined;
    return { profile, settings, ports: { searchKnowledge: () => Promise.resolve([]), fetch: () => Promise.reject(new Error('none')), now: () => 0 }, modelName: 'm' };
  };

  it('offers the owner\'s assistants by name, not one that is gone, and hands over to one on the pipeline, recording it', async () => {
    const owner = await createTestUser(knex(), { balanceUsd: 5 });
    const billing = await createTestAssistant(platform, owner, { name: 'Billing' });
    const gone = await createTestAssistant(platform, owner, { name: 'Gone' });
    const front = await createTestAssistant(platform, owner, {
      name: 'Front desk',
      tools: [
        { type: 'assistant_transfer', assistant_id: billing.id, message_before_transfer: 'One moment.' },
        { type: 'assistant_transfer', assistant_id: gone.id, description: 'Never mind.', speak_transfer_greeting: false },
      ],
    });
    await platform.request('DELETE', `/user/assistant/${gone.id}`, { token: owner.token });
    const profile = await loadAgentProfile({ knex: knex(), secrets: platform.providers.secrets }, { id: front.id });
    expect(profile!.lineTools).toEqual([{
      type: 'assistant_transfer', assistantId: billing.id, assistantName: 'Billing', description: undefined, messageBeforeTransfer: 'One moment.', speakTransferGreeting: true,
    }]);

    const [row] = await knex()('calls').insert({ userId: owner.id, assistantId: front.id, assistantName: 'Front desk', type: 'web', status: 'in-progress' }).returning('id');
    const callId = Number((row as { id: number }).id);
    const line = assistantLine({ knex: knex(), load }, { id: callId, userId: owner.id });
    await expect(line.check(billing.id)).resolves.toBeUndefined();
    await expect(line.check(gone.id)).rejects.toThrow('That assistant is not available any more.');
    const stranger = await createTestAssistant(platform, await createTestUser(knex()), { name: 'Stranger' });
    await expect(line.check(stranger.id)).rejects.toThrow(RejectedError);
    await knex()('assistants').where({ id: billing.id }).update({ mode: 'multimodal' });
    await expect(line.check(billing.id)).rejects.toThrow('The assistant "Billing" answers with a speech-to-speech model, which cannot take over this call.');
    await knex()('assistants').where({ id: billing.id }).update({ mode: 'pipeline' });

    const taking = await line.load(billing.id);
    expect(taking.profile).toMatchObject({ assistantId: billing.id, name: 'Billing' });
    const { transfers, assistantId } = await knex()('calls').where({ id: callId }).first();
    expect(transfers).toEqual([{ type: 'assistant', assistant_id: billing.id, assistant_name: 'Billing', requested_at: expect.any(String) }]);
    // The call stays the one its first assistant took.
    expect(Number(assistantId)).toBe(front.id);
  });
});
