import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { twilioSignatureOf } from '../../src/api/middleware/signatures.ts';
import { createTwilioTelephony } from '../../src/providers/telephony/twilio.ts';
import type { TwilioWebhook } from '../fakes/twilio/messages.ts';
import { startFakeTwilio, type FakeTwilio } from '../fakes/twilio/server.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response/>';

/** A number the carrier provisioned, held by a new user with a dollar; the user, the number's id and E.164. */
async function sender(platform: TestPlatform) {
  const knex = platform.database.knex;
  const user = await createTestUser(knex, { balanceUsd: 1 });
  const [offer] = await platform.providers.telephony.searchNumbers({ countryCode: 'US', limit: 1 });
  await platform.providers.telephony.provisionNumber({ phoneNumber: offer!.phoneNumber, idempotencyKey: `sms-${crypto.randomUUID()}` });
  const [row] = await knex('phone_numbers').insert({ userId: user.id, phoneNumber: offer!.phoneNumber, countryCode: 'US', type: 'normal', smsCapable: true, status: 'active' }).returning('id');
  return { user, id: Number((row as { id: number }).id), phoneNumber: offer!.phoneNumber };
}

const ledgerOf = (platform: TestPlatform, user: TestUser) =>
  platform.database.knex('balance_transactions').where({ userId: user.id }).whereNot({ kind: 'adjustment' }).orderBy('id').select('kind', 'amountMicros');

describe('message status callbacks and texts to the numbers, on the sandbox carrier', () => {
  let platform: TestPlatform;

  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(() => platform.close());

  const knex = () => platform.database.knex;
  const sendTo = async (to: string) => {
    const from = await sender(platform);
    const sent = await platform.request('POST', '/user/sms', { token: from.user.token, body: { from: from.id, to, body: 'Hello from Parley' } });
    expect(sent.status, sent.text).toBe(200);
    return { ...from, smsId: sent.body.data.sms_id as number };
  };
  const settled = (smsId: number) => expect.poll(async () => (await knex()('sms_messages').where({ id: smsId }).first()).status, { timeout: 5000, interval: 50 });

  it('reports a message to a handset sent, then delivered', async () => {
    const { smsId, user } = await sendTo('+14155550123');
    await settled(smsId).toBe('delivered');
    expect(await knex()('sms_messages').where({ id: smsId }).first()).toMatchObject({ costMicros: 10_000, errorCode: null });
    expect(await ledgerOf(platform, user)).toEqual([{ kind: 'sms', amountMicros: -10_000 }]);
  });

  it('keeps the charge of a message that went out but did not arrive, and refunds one that failed before it left', async () => {
    const unreachable = await sendTo('+14155550181');
    const failing = await sendTo('+14155550196');
    await settled(unreachable.smsId).toBe('undelivered');
    await settled(failing.smsId).toBe('failed');
    expect(await knex()('sms_messages').where({ id: unreachable.smsId }).first()).toMatchObject({ errorCode: '30003', costMicros: 10_000 });
    expect(await knex()('sms_messages').where({ id: failing.smsId }).first()).toMatchObject({ errorCode: '30008', costMicros: 0 });
    expect(await ledgerOf(platform, unreachable.user)).toEqual([{ kind: 'sms', amountMicros: -10_000 }]);
    expect(await ledgerOf(platform, failing.user)).toEqual([{ kind: 'sms', amountMicros: -10_000 }, { kind: 'sms_refund', amountMicros: 10_000 }]);
  });

  it('stores a text a phone sends to one of the numbers for the number\'s owner, and lists it', async () => {
    const to = await sender(platform);
    const received = await platform.sandboxCarrier!.messages.receive({ from: '+14155550142', to: to.phoneNumber, body: 'Can I move my appointment?' });
    expect(received.answered).toBe(200);
    const listed = await platform.request('GET', '/user/sms?direction=inbound', { token: to.user.token });
    expect(listed.body).toMatchObject({
      total: 1,
      data: [{ direction: 'inbound', phone_number_id: to.id, from: '+14155550142', to: to.phoneNumber, body: 'Can I move my appointment?', status: 'received', cost: 0, sms_sid: received.sid }],
    });
    expect((await platform.request('GET', '/user/sms?direction=outbound', { token: to.user.token })).body.total).toBe(0);
  });

  it('refuses forged and unsigned callbacks with 403 and changes nothing', async () => {
    const { smsId, user } = await sendTo('+14155550123');
    await settled(smsId).toBe('delivered');
    const path = `/api/telephony/sandbox/messages/status?sms_id=${smsId}`;
    const form = new URLSearchParams({ MessageSid: `SM${'0'.repeat(32)}`, MessageStatus: 'failed' });
    const forged = await fetch(`${platform.baseUrl}${path}`, {
      method: 'POST', body: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignatureOf('forged', `${platform.baseUrl}${path}`, form) },
    });
    expect(forged.status).toBe(403);
    const unsigned = await fetch(`${platform.baseUrl}/api/telephony/sandbox/messages`, {
      method: 'POST', body: new URLSearchParams({ MessageSid: `SM${'1'.repeat(32)}`, From: '+14155550142', To: '+14155550100', Body: 'x' }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(unsigned.status).toBe(403);
    expect(await knex()('sms_messages').where({ id: smsId }).first()).toMatchObject({ status: 'delivered', costMicros: 10_000 });
    expect(await knex()('sms_messages').where({ userId: user.id })).toHaveLength(1);
  });
});

describe('message status callbacks and texts to the numbers, on Twilio (the fake of its REST API and webhooks)', () => {
  const PUBLIC_URL = 'https://parley.example.test';
  let twilio: FakeTwilio;
  let platform: TestPlatform;

  beforeAll(async () => {
    twilio = await startFakeTwilio();
    const settings = { provider: 'twilio' as const, accountSid: twilio.accountSid, authToken: twilio.authToken, apiBase: twilio.url };
    platform = await startTestPlatform({ env: { PUBLIC_URL }, providers: { telephony: createTwilioTelephony({ settings, publicUrl: PUBLIC_URL }) } });
  });
  afterAll(async () => {
    await platform.close();
    await twilio.close();
  });

  const knex = () => platform.database.knex;
  /** Posts a webhook the fake built for PUBLIC_URL to this platform, as Twilio would deliver it there. */
  const deliver = (webhook: TwilioWebhook, signature = webhook.signature) => {
    const url = new URL(webhook.url);
    return fetch(`${platform.baseUrl}${url.pathname}${url.search}`, {
      method: 'POST', body: webhook.form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
    });
  };
  const send = async () => {
    const from = await sender(platform);
    const sent = await platform.request('POST', '/user/sms', { token: from.user.token, body: { from: from.id, to: '+14155550123', body: 'Hello from Parley' } });
    expect(sent.status, sent.text).toBe(200);
    const row = await knex()('sms_messages').where({ id: sent.body.data.sms_id }).first();
    return { ...from, row, messageSid: row.providerMessageId as string };
  };
  const message = async (id: number) => knex()('sms_messages').where({ id }).first();

  it('follows Twilio\'s status callbacks forward only: queued, sent, delivered, and a late `sent` changes nothing', async () => {
    const { row, messageSid } = await send();
    expect(row).toMatchObject({ status: 'queued', providerMessageId: expect.stringMatching(/^SM/) });
    expect((await deliver(twilio.messages.report(messageSid, 'sent'))).status).toBe(200);
    expect((await message(row.id)).status).toBe('sent');
    await deliver(twilio.messages.report(messageSid, 'delivered'));
    await deliver(twilio.messages.report(messageSid, 'sent'));
    expect((await message(row.id)).status).toBe('delivered');
  });

  it('refunds a message Twilio reports failed, once however often it says so', async () => {
    const { row, user, messageSid } = await send();
    const failed = twilio.messages.report(messageSid, 'failed', 30008);
    expect((await deliver(failed)).status).toBe(200);
    expect((await deliver(failed)).status).toBe(200);
    expect(await message(row.id)).toMatchObject({ status: 'failed', errorCode: '30008', costMicros: 0 });
    expect(await ledgerOf(platform, user)).toEqual([{ kind: 'sms', amountMicros: -10_000 }, { kind: 'sms_refund', amountMicros: 10_000 }]);
  });

  it('finds a message by Twilio\'s id when the callback does not name it', async () => {
    const { row, messageSid } = await send();
    const report = twilio.messages.report(messageSid, 'delivered');
    const url = `${PUBLIC_URL}/api/telephony/twilio/messages/status`;
    expect((await deliver({ url, form: report.form, signature: twilioSignatureOf(twilio.authToken, url, report.form) })).status).toBe(200);
    expect((await message(row.id)).status).toBe('delivered');
  });

  it('refuses forged and unsigned status callbacks with 403 and changes nothing', async () => {
    const { row, messageSid } = await send();
    const report = twilio.messages.report(messageSid, 'failed', 30008);
    expect((await deliver(report, twilioSignatureOf('not-the-token', report.url, report.form))).status).toBe(403);
    expect((await deliver(report, '')).status).toBe(403);
    // Signed for other parameters: the status was changed on the way.
    const tampered = new URLSearchParams(report.form);
    tampered.set('MessageStatus', 'delivered');
    expect((await deliver({ ...report, form: tampered })).status).toBe(403);
    expect(await message(row.id)).toMatchObject({ status: 'queued', costMicros: 10_000 });
  });

  it('answers a message Twilio could not be asked to send with 500, and refunds it', async () => {
    const from = await sender(platform);
    twilio.failNext('/Messages.json', 500, 20500, 'Internal Server Error');
    const failed = await platform.request('POST', '/user/sms', { token: from.user.token, body: { from: from.id, to: '+14155550123', body: 'Hello' } });
    expect(failed).toMatchObject({ status: 500, body: { message: 'Failed to send SMS', error: 'The carrier could not be reached. Please try again.' } });
    expect(await ledgerOf(platform, from.user)).toEqual([{ kind: 'sms', amountMicros: -10_000 }, { kind: 'sms_refund', amountMicros: 10_000 }]);
  });

  it('stores a text to one of the numbers once however often Twilio posts it, and answers empty TwiML', async () => {
    const to = await sender(platform);
    // Posted to the SmsUrl the number was bought with.
    const webhook = twilio.messages.receive({ from: '+14155550142', to: to.phoneNumber, body: 'STOP? No, just hello 👋' });
    for (let attempt = 0; attempt < 2; attempt++) {
      const answered = await deliver(webhook);
      expect(answered.status).toBe(200);
      expect(answered.headers.get('content-type')).toMatch(/^text\/xml/);
      expect(await answered.text()).toBe(EMPTY_TWIML);
    }
    const stored = await knex()('sms_messages').where({ userId: to.user.id });
    expect(stored).toEqual([expect.objectContaining({
      direction: 'inbound', phoneNumberId: to.id, fromNumber: '+14155550142', toNumber: to.phoneNumber, body: 'STOP? No, just hello 👋',
      encoding: 'UCS-2', segments: 1, costMicros: 0, status: 'received', providerMessageId: webhook.form.get('MessageSid'),
    })]);
    expect((await deliver(webhook, twilioSignatureOf('forged', webhook.url, webhook.form))).status).toBe(403);
  });

  it('answers a text to a number Parley does not hold with empty TwiML, storing nothing', async () => {
    const url = `${PUBLIC_URL}/api/telephony/twilio/messages`;
    const form = new URLSearchParams({ MessageSid: `SM${'2'.repeat(32)}`, From: '+14155550142', To: '+14155550100', Body: 'Anyone there?', AccountSid: twilio.accountSid });
    const answered = await deliver({ url, form, signature: twilioSignatureOf(twilio.authToken, url, form) });
    expect(await answered.text()).toBe(EMPTY_TWIML);
    expect(await knex()('sms_messages').where({ providerMessageId: `SM${'2'.repeat(32)}` })).toEqual([]);
  });
});
