import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { twilioSignatureOf } from '../../src/api/middleware/signatures.ts';
import { createLogger } from '../../src/logger.ts';
import { createTwilioTelephony } from '../../src/providers/telephony/twilio.ts';
import { workflowIds } from '../../src/temporal/names.ts';
import { startCallLifecycle } from '../../src/temporal/starters.ts';
import { startFakeTwilio, type FakeTwilio } from '../fakes/twilio/server.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser } from '../support/users.ts';

const PUBLIC_URL = 'https://parley.example.test';

/**
 * Outbound phone calls dialled through Twilio (the fake of its REST API) and followed through its signed
 * status callbacks, posted here as Twilio posts them, by the call's real workflow.
 */
describe('following a dialled call through the carrier\'s status callbacks', () => {
  let twilio: FakeTwilio;
  let platform: TestPlatform;
  let from: string;

  beforeAll(async () => {
    twilio = await startFakeTwilio();
    const settings = { provider: 'twilio' as const, accountSid: twilio.accountSid, authToken: twilio.authToken, apiBase: twilio.url };
    platform = await startTestPlatform({ worker: true, env: { PUBLIC_URL }, providers: { telephony: createTwilioTelephony({ settings, publicUrl: PUBLIC_URL }) } });
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
    return { callId, callSid: (await knex()('calls').where({ id: callId }).first()).providerCallId as string };
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
});
