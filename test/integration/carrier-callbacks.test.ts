import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { twilioSignatureOf } from '../../src/api/middleware/signatures.ts';
import { phoneStreamToken } from '../../src/lib/media-control.ts';
import { createLogger } from '../../src/logger.ts';
import { createTwilioTelephony } from '../../src/providers/telephony/twilio.ts';
import { workflowIds } from '../../src/temporal/names.ts';
import { startCallLifecycle } from '../../src/temporal/starters.ts';
import type { TwilioWebhook } from '../fakes/twilio/calls.ts';
import { startFakeTwilio, type FakeTwilio } from '../fakes/twilio/server.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser } from '../support/users.ts';

const PUBLIC_URL = 'https://parley.example.test';

/**
 * Outbound phone calls dialled through Twilio (the fake of its REST API) and followed through its signed
 * status callbacks, posted here as Twilio posts them, by the call's real workflow.
 */
describe('the carrier\'s webhooks: status callbacks of dialled calls, and calls to the numbers', () => {
  let twilio: FakeTwilio;
  let platform: TestPlatform;
  let from: string;

  beforeAll(async () => {
    twilio = await startFakeTwilio();
    const settings = { provider: 'twilio' as const, accountSid: twilio.accountSid, authToken: twilio.authToken, apiBase: twilio.url };
    // A language model is configured (never asked here): calls are answered only where one is.
    platform = await startTestPlatform({ worker: true, env: { PUBLIC_URL, LLM_BASE_URL: 'http://127.0.0.1:9', LLM_API_KEY: 'test' }, providers: { telephony: createTwilioTelephony({ settings, publicUrl: PUBLIC_URL }) } });
    const [offer] = await platform.providers.telephony.searchNumbers({ countryCode: 'US', limit: 1 });
    from = offer!.phoneNumber;
    await platform.providers.telephony.provisionNumber({ phoneNumber: from, idempotencyKey: 'callbacks-test' });
  });
  afterAll(async () => {
    await platform.close();
    await twilio.close();
  });

  const knex = () => platform.database.knex;
  const dial = async () => {
    const user = await createTestUser(knex(), { balanceUsd: 5 });
    const [assistant] = await knex()('assistants').insert({ userId: user.id, uuid: crypto.randomUUID(), name: 'Caller', type: 'outbound' }).returning('id');
    const [row] = await knex()('calls').insert({
      userId: user.id, assistantId: (assistant as { id: number }).id, assistantName: 'Caller', type: 'outbound', assistantPhoneNumber: from, clientPhoneNumber: '+14155550123',
    }).returning('id');
    const callId = Number((row as { id: number }).id);
    await startCallLifecycle(platform.temporal, { id: callId, userId: user.id, assistantId: null }, createLogger(platform.config));
    await expect.poll(async () => (await knex()('calls').where({ id: callId }).first()).providerCallId, { timeout: 10_000, interval: 100 }).toMatch(/^CA/);
    return { user, callId, callSid: (await knex()('calls').where({ id: callId }).first()).providerCallId as string };
  };
  /** Posts a status callback as Twilio does: a form body, signed over the URL Parley gave and the parameters. */
  const callback = (callId: number, params: Record<string, string>, authToken = twilio.authToken) => {
    const path = `/api/telephony/twilio/status?call_id=${callId}`;
    const form = new URLSearchParams({ AccountSid: twilio.accountSid, ApiVersion: '2010-04-01', Direction: 'outbound-api', ...params });
    return fetch(`${platform.baseUrl}${path}`, {
      method: 'POST',
      body: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignatureOf(authToken, `${PUBLIC_URL}${path}`, form) },
    });
  };
  const status = async (callId: number) => (await knex()('calls').where({ id: callId }).first()).status as string;
  /** A status callback of a number's own calls (set at purchase): no call id in the URL. */
  const callbackForNumber = (params: Record<string, string>) => {
    const path = '/api/telephony/twilio/status';
    const form = new URLSearchParams({ AccountSid: twilio.accountSid, ApiVersion: '2010-04-01', Direction: 'inbound', ...params });
    return fetch(`${platform.baseUrl}${path}`, {
      method: 'POST',
      body: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignatureOf(twilio.authToken, `${PUBLIC_URL}${path}`, form) },
    });
  };

  it('dials through the Calls API, shows the ringing, and ends the call busy as the carrier says', async () => {
    const { callId, callSid } = await dial();
    const placed = twilio.calls.calls.get(callSid)!;
    expect(placed).toMatchObject({ from, to: '+14155550123', status_callback: `${PUBLIC_URL}/api/telephony/twilio/status?call_id=${callId}`, timeout: 30 });
    expect(placed.twiml).toContain(`<Stream url="${platform.config.media.publicUrl}/media/phone-call">`);

    expect((await callback(callId, { CallSid: callSid, CallStatus: 'ringing' })).status).toBe(200);
    expect(await status(callId)).toBe('ringing');
    expect((await callback(callId, { CallSid: callSid, CallStatus: 'busy', Timestamp: 'Tue, 24 Nov 2026 10:00:05 +0000' })).status).toBe(200);
    await platform.temporal.client.workflow.getHandle(workflowIds.call(callId)).result();
    expect(await knex()('calls').where({ id: callId }).first()).toMatchObject({ status: 'busy', endReason: 'busy', endedAt: new Date('2026-11-24T10:00:05.000Z'), duration: 0, totalCostMicros: 0 });
  });

  it('refuses forged and unsigned callbacks with 403 and changes nothing', async () => {
    const { callId, callSid } = await dial();
    expect((await callback(callId, { CallSid: callSid, CallStatus: 'completed' }, 'not-the-token')).status).toBe(403);
    const unsigned = await fetch(`${platform.baseUrl}/api/telephony/twilio/status?call_id=${callId}`, {
      method: 'POST', body: new URLSearchParams({ CallSid: callSid, CallStatus: 'completed' }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(unsigned.status).toBe(403);
    expect(await status(callId)).toBe('initiated');
    // The signed word counts: the call rang out.
    await callback(callId, { CallSid: callSid, CallStatus: 'no-answer' });
    await platform.temporal.client.workflow.getHandle(workflowIds.call(callId)).result();
    expect(await status(callId)).toBe('no-answer');
  });

  /** Delivers a webhook the fake Twilio made (its URL on PUBLIC_URL) to the platform, signed as the fake signed it. */
  const deliver = (hook: TwilioWebhook, signature = hook.signature) => {
    const url = new URL(hook.url);
    return fetch(`${platform.baseUrl}${url.pathname}${url.search}`, {
      method: 'POST',
      body: hook.form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
    });
  };

  it('hangs up when Twilio\'s answering-machine detection finds a machine, and records it and Twilio\'s price', async () => {
    const { user, callId, callSid } = await dial();
    expect(twilio.calls.calls.get(callSid)).toMatchObject({
      machine_detection: 'DetectMessageEnd', async_amd: 'true', async_amd_status_callback: `${PUBLIC_URL}/api/telephony/twilio/answered-by?call_id=${callId}`,
    });
    twilio.calls.answer(callSid);
    await callback(callId, { CallSid: callSid, CallStatus: 'in-progress' });
    await expect.poll(() => status(callId), { timeout: 10_000, interval: 100 }).toBe('in-progress');
    const verdict = twilio.calls.detect(callSid, 'machine_end_beep');
    // A forged verdict is refused and changes nothing.
    expect((await deliver(verdict, 'forged')).status).toBe(403);
    expect((await deliver(verdict)).status).toBe(200);
    await platform.temporal.client.workflow.getHandle(workflowIds.call(callId)).result();
    // The assistant hangs up on voicemail (the default): the line was dropped at Twilio, which priced the call.
    expect(twilio.calls.calls.get(callSid)).toMatchObject({ status: 'completed', price: '-0.01400' });
    expect(await knex()('calls').where({ id: callId }).first()).toMatchObject({ status: 'ended_by_assistant', endReason: 'voicemail', answeredBy: 'machine' });
    const shown = await platform.request('GET', `/user/calls/${callId}`, { token: user.token });
    expect(shown.body).toMatchObject({ answered_by: 'machine', carrier_cost: 0.014, total_cost: expect.any(Number) });
  });

  it('records a person as Twilio found them, and leaves the call up', async () => {
    const { callId, callSid } = await dial();
    twilio.calls.answer(callSid);
    await callback(callId, { CallSid: callSid, CallStatus: 'in-progress' });
    expect((await deliver(twilio.calls.detect(callSid, 'human'))).status).toBe(200);
    await expect.poll(async () => (await knex()('calls').where({ id: callId }).first()).answeredBy, { timeout: 10_000, interval: 100 }).toBe('human');
    expect(await status(callId)).toBe('in-progress');
    // A verdict naming another call of the account is dropped.
    const other = await dial();
    twilio.calls.answer(other.callSid);
    const misdirected = twilio.calls.detect(other.callSid, 'machine_start');
    const aimed = { ...misdirected, url: misdirected.url.replace(`call_id=${other.callId}`, `call_id=${callId}`) };
    expect((await deliver({ ...aimed, signature: twilioSignatureOf(twilio.authToken, aimed.url, aimed.form) })).status).toBe(200);
    await callback(other.callId, { CallSid: other.callSid, CallStatus: 'in-progress' });
    await expect.poll(() => status(other.callId), { timeout: 10_000, interval: 100 }).toBe('in-progress');
    const rows = await knex()('calls').whereIn('id', [callId, other.callId]).orderBy('id').select('answeredBy');
    expect(rows.map((row: { answeredBy: string | null }) => row.answeredBy)).toEqual(['human', null]);
    for (const hungUp of [{ callId, callSid }, other]) await callback(hungUp.callId, { CallSid: hungUp.callSid, CallStatus: 'completed' });
  });

  /** Posts Twilio's voice webhook for a call to `to`, as Twilio does for a number's incoming calls. */
  const ring = (params: Record<string, string>, authToken = twilio.authToken) => {
    const path = '/api/telephony/twilio/voice';
    const form = new URLSearchParams({ AccountSid: twilio.accountSid, ApiVersion: '2010-04-01', Direction: 'inbound', CallStatus: 'ringing', ...params });
    return fetch(`${platform.baseUrl}${path}`, {
      method: 'POST',
      body: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignatureOf(authToken, `${PUBLIC_URL}${path}`, form) },
    });
  };
  /** A number held by a new user, with an inbound assistant on it unless `assistant` is false. */
  const ownedNumber = async (assistant = true, user?: { id: number }) => {
    user ??= await createTestUser(knex(), { balanceUsd: 5 });
    const phoneNumber = `+1415${String(Math.floor(Math.random() * 9_000_000) + 1_000_000)}`;
    const [number] = await knex()('phone_numbers').insert({ userId: user.id, phoneNumber, countryCode: 'US', type: 'normal', smsCapable: true, status: 'active' }).returning('id');
    if (assistant) {
      await knex()('assistants').insert({ userId: user.id, uuid: crypto.randomUUID(), name: 'Front desk', type: 'inbound', phoneNumberId: (number as { id: number }).id, variables: JSON.stringify({ company: 'Acme' }) });
    }
    return phoneNumber;
  };

  it('answers a call to a number with its inbound assistant by streaming it to the media gateway, once per call', async () => {
    const to = await ownedNumber();
    const callSid = `CA${'1'.repeat(24)}${String(Date.now()).slice(-8)}`;
    const answered = await ring({ CallSid: callSid, From: '+14155550142', To: to });
    expect(answered.status).toBe(200);
    expect(answered.headers.get('content-type')).toMatch(/^text\/xml/);
    const twiml = await answered.text();
    const call = await knex()('calls').where({ providerCallId: callSid }).first();
    expect(call).toMatchObject({ type: 'inbound', status: 'initiated', assistantName: 'Front desk', assistantPhoneNumber: to, clientPhoneNumber: '+14155550142' });
    expect(call.variables).toEqual({ company: 'Acme', customer_phone: '+14155550142' });
    expect(twiml).toBe(`<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream url="${platform.config.media.publicUrl}/media/phone-call">`
      + `<Parameter name="callId" value="${call.id}"/><Parameter name="token" value="${phoneStreamToken(platform.providers.secrets, Number(call.id))}"/></Stream></Connect></Response>`);
    // Twilio asking again for the same call gets the same answer, and no second call.
    expect(await (await ring({ CallSid: callSid, From: '+14155550142', To: to })).text()).toBe(twiml);
    expect(await knex()('calls').where({ providerCallId: callSid })).toHaveLength(1);
    // The number's own status callback names the call by Twilio's id alone; the caller hung up before the stream.
    await callbackForNumber({ CallSid: callSid, CallStatus: 'completed' });
    await platform.temporal.client.workflow.getHandle(workflowIds.call(Number(call.id))).result();
    expect(await status(Number(call.id))).toBe('failed');
  });

  it('says a short message on a number without an assistant, rejects one nobody holds, and refuses forged webhooks', async () => {
    const unstaffed = await ownedNumber(false);
    const said = await (await ring({ CallSid: `CA${'2'.repeat(32)}`, From: '+14155550142', To: unstaffed })).text();
    expect(said).toBe('<?xml version="1.0" encoding="UTF-8"?><Response><Say>Sorry, this number cannot take calls right now. Please try again later. Goodbye.</Say><Hangup/></Response>');
    const rejected = await (await ring({ CallSid: `CA${'3'.repeat(32)}`, From: '+14155550142', To: '+14155550100' })).text();
    expect(rejected).toBe('<?xml version="1.0" encoding="UTF-8"?><Response><Reject reason="rejected"/></Response>');
    expect((await ring({ CallSid: `CA${'4'.repeat(32)}`, From: '+14155550142', To: unstaffed }, 'forged')).status).toBe(403);
    expect(await knex()('calls').whereIn('providerCallId', [2, 3, 4].map((digit) => `CA${String(digit).repeat(32)}`))).toEqual([]);
  });

  it('rejects a call as busy, recording nothing, while the owner has as many calls live as the plan allows', async () => {
    const owner = await createTestUser(knex(), { balanceUsd: 5 });
    const planId = `one-line-${owner.id}`;
    await knex()('plans').insert({ id: planId, name: 'One line', maxCallsInParallel: 1 });
    await knex()('users').where({ id: owner.id }).update({ planId });
    const to = await ownedNumber(true, owner);
    const first = `CA${'5'.repeat(24)}${String(Date.now()).slice(-8)}`;
    expect(await (await ring({ CallSid: first, From: '+14155550142', To: to })).text()).toContain('<Connect><Stream');
    const second = `CA${'6'.repeat(24)}${String(Date.now()).slice(-8)}`;
    const busy = await ring({ CallSid: second, From: '+14155550143', To: to });
    expect(busy.status).toBe(200);
    expect(await busy.text()).toBe('<?xml version="1.0" encoding="UTF-8"?><Response><Reject reason="busy"/></Response>');
    expect(await knex()('calls').where({ providerCallId: second })).toEqual([]);
    // The live call announced again is its own slot, not a second one.
    expect(await (await ring({ CallSid: first, From: '+14155550142', To: to })).text()).toContain('<Connect><Stream');
    // Once it has ended, its slot is free for the next caller.
    const { id } = await knex()('calls').where({ providerCallId: first }).first();
    await callbackForNumber({ CallSid: first, CallStatus: 'completed' });
    await platform.temporal.client.workflow.getHandle(workflowIds.call(Number(id))).result();
    expect(await (await ring({ CallSid: second, From: '+14155550143', To: to })).text()).toContain('<Connect><Stream');
    expect(await knex()('calls').where({ userId: owner.id }).whereNull('endedAt')).toHaveLength(1);
    await callbackForNumber({ CallSid: second, CallStatus: 'completed' });
  });
});
