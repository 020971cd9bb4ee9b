import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RejectedError } from '../../src/lib/errors.ts';
import { createTwilioTelephony, twilioCallbackPaths } from '../../src/providers/telephony/twilio.ts';
import type { TelephonyProvider } from '../../src/providers/telephony/types.ts';
import { startFakeTwilio, type FakeTwilio } from '../fakes/twilio/server.ts';

const PUBLIC_URL = 'https://parley.example.test';

describe('the Twilio carrier against a fake of its REST API', () => {
  let twilio: FakeTwilio;
  let carrier: TelephonyProvider;
  const adapter = (authToken: string) => createTwilioTelephony({
    settings: { provider: 'twilio', accountSid: twilio.accountSid, authToken, apiBase: twilio.url },
    publicUrl: PUBLIC_URL,
  });

  beforeAll(async () => {
    twilio = await startFakeTwilio();
    carrier = adapter(twilio.authToken);
  });
  afterAll(() => twilio.close());

  const sent = (method: string, pathEnd: string) => twilio.requests.filter((request) => request.method === method && request.path.endsWith(pathEnd));
  const offer = async (countryCode = 'US') => (await carrier.searchNumbers({ countryCode, limit: 3 }))[0]!;

  it('searches local numbers with the digits asked for, priced from the Pricing API once an hour', async () => {
    const found = await carrier.searchNumbers({ countryCode: 'US', contains: '42', limit: 5 });
    expect(found).toHaveLength(5);
    for (const number of found) {
      expect(number).toEqual({
        phoneNumber: expect.stringMatching(/^\+1\d{10}$/), phoneNumberFormatted: expect.stringMatching(/^\(\d{3}\) \d{3}-\d{4}$/),
        countryCode: 'US', monthlyPriceMicros: 1_150_000, addressRequirements: 'none', smsCapable: true,
      });
      expect(number.phoneNumber.slice(1)).toContain('42');
    }
    const [search] = sent('GET', '/AvailablePhoneNumbers/US/Local.json');
    expect(Object.fromEntries(search!.query)).toMatchObject({ Contains: '42', VoiceEnabled: 'true', PageSize: '5' });
    expect(search!.headers.authorization).toBe(`Basic ${Buffer.from(`${twilio.accountSid}:${twilio.authToken}`).toString('base64')}`);
    await carrier.searchNumbers({ countryCode: 'US', limit: 2 });
    expect(sent('GET', '/v1/PhoneNumbers/Countries/US')).toHaveLength(1);
  });

  it('matches a single digit itself, reads Twilio\'s address rules, and offers nothing where Twilio sells nothing', async () => {
    const one = await carrier.searchNumbers({ countryCode: 'US', contains: '7', limit: 4 });
    expect(one.length).toBeGreaterThan(0);
    for (const number of one) expect(number.phoneNumber.slice(1)).toContain('7');
    expect(sent('GET', '/AvailablePhoneNumbers/US/Local.json').at(-1)!.query.has('Contains')).toBe(false);
    expect(await offer('GB')).toMatchObject({ countryCode: 'GB', addressRequirements: 'local', smsCapable: false });
    expect(await carrier.searchNumbers({ countryCode: 'ZZ', limit: 5 })).toEqual([]);
  });

  it('buys a number with its URLs on Parley and the purchase as its name; asked again, answers the same number', async () => {
    const { phoneNumber } = await offer();
    const key = `parley-phone-number-${Date.now()}`;
    const first = await carrier.provisionNumber({ phoneNumber, idempotencyKey: key });
    expect(first.providerNumberId).toMatch(/^PN[0-9a-f]{32}$/);
    expect(Object.fromEntries(sent('POST', '/IncomingPhoneNumbers.json').at(-1)!.form)).toEqual({
      PhoneNumber: phoneNumber, FriendlyName: key,
      VoiceUrl: `${PUBLIC_URL}${twilioCallbackPaths.voice}`, VoiceMethod: 'POST',
      StatusCallback: `${PUBLIC_URL}${twilioCallbackPaths.status}`, StatusCallbackMethod: 'POST',
      SmsUrl: `${PUBLIC_URL}${twilioCallbackPaths.messages}`, SmsMethod: 'POST',
    });
    const purchases = sent('POST', '/IncomingPhoneNumbers.json').length;
    // A retried activity whose first answer was lost: no second purchase.
    expect(await carrier.provisionNumber({ phoneNumber, idempotencyKey: key })).toEqual(first);
    expect(sent('POST', '/IncomingPhoneNumbers.json')).toHaveLength(purchases);
    // Pointed at Parley once more, in case its address changed since.
    expect(sent('POST', `/IncomingPhoneNumbers/${first.providerNumberId}.json`)).toHaveLength(1);
    expect(twilio.numbers.incoming.get(first.providerNumberId)).toMatchObject({ phone_number: phoneNumber, friendly_name: key, voice_url: `${PUBLIC_URL}${twilioCallbackPaths.voice}` });
    // Another purchase cannot have it.
    await expect(carrier.provisionNumber({ phoneNumber, idempotencyKey: `${key}-other` })).rejects.toThrow(RejectedError);
  });

  it('configures where a number sends its calls, their statuses and its messages; a number not on the account is refused', async () => {
    const { phoneNumber } = await offer();
    const { providerNumberId } = await carrier.provisionNumber({ phoneNumber, idempotencyKey: `configure-${Date.now()}` });
    const routing = { voiceUrl: 'https://moved.example.test/voice', statusCallbackUrl: 'https://moved.example.test/status', smsUrl: 'https://moved.example.test/messages' };
    await carrier.configureNumber(providerNumberId, routing);
    expect(Object.fromEntries(sent('POST', `/IncomingPhoneNumbers/${providerNumberId}.json`).at(-1)!.form)).toEqual({
      VoiceUrl: routing.voiceUrl, VoiceMethod: 'POST', StatusCallback: routing.statusCallbackUrl, StatusCallbackMethod: 'POST', SmsUrl: routing.smsUrl, SmsMethod: 'POST',
    });
    expect(twilio.numbers.incoming.get(providerNumberId)).toMatchObject({ voice_url: routing.voiceUrl, status_callback: routing.statusCallbackUrl, sms_url: routing.smsUrl });
    // Twilio failing is worth another try; a number Twilio does not have on the account is not.
    twilio.failNext(`/IncomingPhoneNumbers/${providerNumberId}`, 503, 20503, 'Service unavailable');
    const unavailable = await carrier.configureNumber(providerNumberId, routing).catch((error: unknown) => error);
    expect(unavailable).toBeInstanceOf(Error);
    expect(unavailable).not.toBeInstanceOf(RejectedError);
    await carrier.releaseNumber(providerNumberId);
    await expect(carrier.configureNumber(providerNumberId, routing)).rejects.toThrow(RejectedError);
  });

  it('gives a number back, and releasing it again is not an error', async () => {
    const { phoneNumber } = await offer();
    const { providerNumberId } = await carrier.provisionNumber({ phoneNumber, idempotencyKey: `release-${Date.now()}` });
    await carrier.releaseNumber(providerNumberId);
    expect(twilio.numbers.incoming.has(providerNumberId)).toBe(false);
    expect(sent('DELETE', `/IncomingPhoneNumbers/${providerNumberId}.json`)).toHaveLength(1);
    await expect(carrier.releaseNumber(providerNumberId)).resolves.toBeUndefined();
  });

  it('rejects what Twilio will not sell, and leaves what may pass to be retried', async () => {
    const taken = await offer();
    twilio.numbers.takenElsewhere.add(taken.phoneNumber);
    await expect(carrier.provisionNumber({ phoneNumber: taken.phoneNumber, idempotencyKey: `taken-${Date.now()}` })).rejects.toThrow(/not available \(error 21422\)/);
    const british = await offer('GB');
    const needsAddress = carrier.provisionNumber({ phoneNumber: british.phoneNumber, idempotencyKey: `gb-${Date.now()}` });
    await expect(needsAddress).rejects.toThrow(RejectedError);
    await expect(needsAddress).rejects.toThrow(/Requires an Address \(error 21631\)/);

    const { phoneNumber } = await offer();
    twilio.failNext('/IncomingPhoneNumbers.json', 500, 20500, 'Internal Server Error');
    const failed = await carrier.provisionNumber({ phoneNumber, idempotencyKey: `outage-${Date.now()}` }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(Error);
    expect(failed).not.toBeInstanceOf(RejectedError);
    // Too many requests: the client waits and asks again by itself.
    twilio.failNext('/IncomingPhoneNumbers.json', 429, 20429, 'Too Many Requests');
    expect((await carrier.provisionNumber({ phoneNumber, idempotencyKey: `busy-${Date.now()}` })).providerNumberId).toMatch(/^PN/);

    const wrongToken = await adapter('not-the-token').searchNumbers({ countryCode: 'US', limit: 1 }).catch((error: unknown) => error);
    expect(wrongToken).toMatchObject({ status: 401, code: 20003 });
    expect(wrongToken).not.toBeInstanceOf(RejectedError);
  });

  describe('calls', () => {
    /** A dial's first try, under a key of its own. */
    const firstTry = () => ({ key: `dial-${randomUUID()}`, since: new Date(), retried: false });
    const placing = async () => {
      const { phoneNumber } = await offer();
      await carrier.provisionNumber({ phoneNumber, idempotencyKey: `calls-${Date.now()}` });
      return {
        from: phoneNumber,
        to: '+14155550123',
        stream: { url: 'wss://media.parley.example.test/media/phone-call', parameters: { callId: '42', token: 'stream-token' } },
        statusCallbackUrl: `${PUBLIC_URL}/api/telephony/twilio/status?call_id=42`,
        ringTimeoutSeconds: 25,
      };
    };

    it('places a call whose answer is streamed to the media gateway, with every status change posted back', async () => {
      const request = await placing();
      const { providerCallId } = await carrier.calls!.placeCall(request, firstTry());
      expect(providerCallId).toMatch(/^CA[0-9a-f]{32}$/);
      const sentForm = sent('POST', '/Calls.json').at(-1)!.form;
      expect(Object.fromEntries(sentForm)).toMatchObject({
        To: '+14155550123', From: request.from, Timeout: '25', StatusCallback: request.statusCallbackUrl, StatusCallbackMethod: 'POST',
      });
      expect(sentForm.getAll('StatusCallbackEvent')).toEqual(['initiated', 'ringing', 'answered', 'completed']);
      expect(sentForm.get('Twiml')).toBe('<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream url="wss://media.parley.example.test/media/phone-call">'
        + '<Parameter name="callId" value="42"/><Parameter name="token" value="stream-token"/></Stream></Connect></Response>');
      expect(sentForm.has('MachineDetection')).toBe(false);
    });

    it('asks for asynchronous answering-machine detection that waits for the greeting\'s end, its verdict posted to Parley', async () => {
      const request = { ...await placing(), answeredByCallbackUrl: `${PUBLIC_URL}/api/telephony/twilio/answered-by?call_id=42` };
      const { providerCallId } = await carrier.calls!.placeCall(request, firstTry());
      expect(Object.fromEntries(sent('POST', '/Calls.json').at(-1)!.form)).toMatchObject({
        MachineDetection: 'DetectMessageEnd', AsyncAmd: 'true', AsyncAmdStatusCallback: request.answeredByCallbackUrl, AsyncAmdStatusCallbackMethod: 'POST',
      });
      expect(twilio.calls.calls.get(providerCallId)).toMatchObject({ machine_detection: 'DetectMessageEnd', async_amd: 'true', async_amd_status_callback: request.answeredByCallbackUrl });
    });

    it('reads what Twilio charged for a call once it has priced it, as positive micro-dollars', async () => {
      const request = await placing();
      const { providerCallId } = await carrier.calls!.placeCall(request, firstTry());
      expect(await carrier.calls!.callPrice(providerCallId)).toBeUndefined();
      twilio.calls.answer(providerCallId);
      twilio.calls.unpriced.add(providerCallId);
      twilio.calls.complete(providerCallId, 65);
      // Completed, but not priced yet.
      expect(await carrier.calls!.callPrice(providerCallId)).toBeUndefined();
      twilio.calls.unpriced.delete(providerCallId);
      expect(twilio.calls.complete(providerCallId, 65).price).toBe('-0.02800');
      expect(await carrier.calls!.callPrice(providerCallId)).toBe(28_000);
    });

    it('cancels a ringing call, hangs up an answered one, and leaves an ended one alone', async () => {
      const request = await placing();
      const ringing = (await carrier.calls!.placeCall(request, firstTry())).providerCallId;
      await carrier.calls!.endCall(ringing);
      expect(twilio.calls.calls.get(ringing)?.status).toBe('canceled');

      const answered = (await carrier.calls!.placeCall(request, firstTry())).providerCallId;
      twilio.calls.calls.get(answered)!.status = 'in-progress';
      await carrier.calls!.endCall(answered);
      expect(twilio.calls.calls.get(answered)?.status).toBe('completed');
      const updates = sent('POST', `/Calls/${answered}.json`).length;
      await carrier.calls!.endCall(answered);
      expect(sent('POST', `/Calls/${answered}.json`)).toHaveLength(updates);
      await expect(carrier.calls!.endCall(`CA${'0'.repeat(32)}`)).resolves.toBeUndefined();
    });

    it('refuses a call Twilio will not place as the caller\'s input', async () => {
      const request = await placing();
      await expect(carrier.calls!.placeCall({ ...request, from: '+14155550100' }, firstTry())).rejects.toThrow(RejectedError);
      await expect(carrier.calls!.placeCall({ ...request, to: '+1' }, firstTry())).rejects.toThrow(/not a valid phone number\. \(error 21211\)/);
    });

    it('transfers a live call with a <Dial> in place of its stream, the whisper on the number, the outcome to the action', async () => {
      const request = await placing();
      const { providerCallId } = await carrier.calls!.placeCall(request, firstTry());
      twilio.calls.calls.get(providerCallId)!.status = 'in-progress';
      const transfer = {
        to: '+14155550142', callerId: request.from, ringTimeoutSeconds: 30,
        outcomeUrl: `${PUBLIC_URL}/api/telephony/twilio/transfer?call_id=42`, whisperUrl: `${PUBLIC_URL}/api/telephony/twilio/whisper?call_id=42`,
      };
      await carrier.calls!.transferCall(providerCallId, transfer);
      const update = sent('POST', `/Calls/${providerCallId}.json`).at(-1)!.form;
      const dial = '<?xml version="1.0" encoding="UTF-8"?><Response>'
        + `<Dial action="${PUBLIC_URL}/api/telephony/twilio/transfer?call_id=42" method="POST" callerId="${request.from}" timeout="30">`
        + `<Number url="${PUBLIC_URL}/api/telephony/twilio/whisper?call_id=42" method="POST">+14155550142</Number></Dial></Response>`;
      expect(update.get('Twiml')).toBe(dial);
      // The call now runs the <Dial>: its stream has ended.
      expect(twilio.calls.calls.get(providerCallId)!.twiml).toBe(dial);

      const { whisperUrl: _whisper, ...cold } = transfer;
      await carrier.calls!.transferCall(providerCallId, cold);
      expect(sent('POST', `/Calls/${providerCallId}.json`).at(-1)!.form.get('Twiml')).toContain('<Number>+14155550142</Number>');
    });

    it('refuses to transfer a call that is over or unknown', async () => {
      const request = await placing();
      const { providerCallId } = await carrier.calls!.placeCall(request, firstTry());
      twilio.calls.calls.get(providerCallId)!.status = 'completed';
      const transfer = { to: '+14155550142', callerId: request.from, ringTimeoutSeconds: 30, outcomeUrl: `${PUBLIC_URL}/api/telephony/twilio/transfer?call_id=42` };
      await expect(carrier.calls!.transferCall(providerCallId, transfer)).rejects.toThrow(/Twilio would not transfer the call to \+14155550142: Call is not in-progress/);
      await expect(carrier.calls!.transferCall(`CA${'0'.repeat(32)}`, transfer)).rejects.toThrow(RejectedError);
    });
  });

  describe('messages', () => {
    const provisioned = async (countryCode = 'US') => {
      const { phoneNumber } = await offer(countryCode);
      await carrier.provisionNumber({ phoneNumber, idempotencyKey: `messages-${Date.now()}-${phoneNumber}` });
      return phoneNumber;
    };
    const statusCallbackUrl = `${PUBLIC_URL}/api/telephony/twilio/messages/status?sms_id=7`;

    it('sends through the Messages API from one of the account\'s numbers, its status changes posted back', async () => {
      const from = await provisioned();
      const queued = await carrier.messages!.sendSms({ from, to: '+14155550123', body: 'Hello there', statusCallbackUrl });
      expect(queued).toEqual({ providerMessageId: expect.stringMatching(/^SM[0-9a-f]{32}$/), status: 'queued' });
      expect(Object.fromEntries(sent('POST', '/Messages.json').at(-1)!.form)).toEqual({ From: from, To: '+14155550123', Body: 'Hello there', StatusCallback: statusCallbackUrl });
      expect(twilio.messages.messages.get(queued.providerMessageId)).toMatchObject({ statusCallback: statusCallbackUrl, resource: { from, to: '+14155550123', direction: 'outbound-api' } });
    });

    it('refuses what Twilio will not send as the caller\'s input, and leaves its outages to be retried', async () => {
      const from = await provisioned();
      twilio.messages.landlines.add('+14155550191');
      await expect(carrier.messages!.sendSms({ from, to: '+14155550191', body: 'Hi', statusCallbackUrl })).rejects.toThrow(/not a valid mobile number \(error 21614\)/);
      // A number offered but never bought is not the account's to send from.
      const notOurs = await offer();
      const noSms = carrier.messages!.sendSms({ from: notOurs.phoneNumber, to: '+14155550123', body: 'Hi', statusCallbackUrl });
      await expect(noSms).rejects.toThrow(RejectedError);
      await expect(noSms).rejects.toThrow(/SMS-capable inbound phone number .* \(error 21606\)/);
      twilio.failNext('/Messages.json', 503, 20503, 'Service Unavailable');
      const outage = await carrier.messages!.sendSms({ from, to: '+14155550123', body: 'Hi', statusCallbackUrl }).catch((error: unknown) => error);
      expect(outage).toBeInstanceOf(Error);
      expect(outage).not.toBeInstanceOf(RejectedError);
    });
  });
});
