import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usdToMicros } from '../../src/lib/money.ts';
import { createTwilioTelephony } from '../../src/providers/telephony/twilio.ts';
import { startFakeTwilio, type FakeTwilio } from '../fakes/twilio/server.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

/**
 * `POST /user/sms` on both carriers: the embedded sandbox carrier, and Twilio through the fake of its REST API.
 * Each carrier refuses to text `LANDLINE` (the sandbox by its last two digits, the fake because it is told to).
 */
const RECIPIENT = '+14155550123';
const LANDLINE = '+14155550191';

interface Carrier {
  name: string;
  start(): Promise<{ platform: TestPlatform; twilio?: FakeTwilio }>;
}

const carriers: Carrier[] = [
  { name: 'sandbox', start: async () => ({ platform: await startTestPlatform() }) },
  {
    name: 'twilio',
    async start() {
      const twilio = await startFakeTwilio();
      twilio.messages.landlines.add(LANDLINE);
      const publicUrl = 'https://parley.example.test';
      const settings = { provider: 'twilio' as const, accountSid: twilio.accountSid, authToken: twilio.authToken, apiBase: twilio.url };
      const platform = await startTestPlatform({ env: { PUBLIC_URL: publicUrl }, providers: { telephony: createTwilioTelephony({ settings, publicUrl }) } });
      return { platform, twilio };
    },
  },
];

describe.each(carriers)('sending a text message on the $name carrier', (carrier) => {
  let platform: TestPlatform;
  let twilio: FakeTwilio | undefined;

  beforeAll(async () => {
    ({ platform, twilio } = await carrier.start());
  });
  afterAll(async () => {
    await platform.close();
    await twilio?.close();
  });

  const knex = () => platform.database.knex;
  /** A number the carrier provisioned, held by `user` (a bought number's row, without the purchase's workflow). */
  const ownNumber = async (user: TestUser, fields: Record<string, unknown> = {}) => {
    const [offer] = await platform.providers.telephony.searchNumbers({ countryCode: 'US', limit: 1 });
    const provisioned = await platform.providers.telephony.provisionNumber({ phoneNumber: offer!.phoneNumber, idempotencyKey: `sms-${crypto.randomUUID()}` });
    const [row] = await knex()('phone_numbers').insert({
      userId: user.id, phoneNumber: offer!.phoneNumber, countryCode: 'US', type: 'normal', smsCapable: true, status: 'active',
      provider: platform.providers.telephony.name, providerNumberId: provisioned.providerNumberId, ...fields,
    }).returning('id');
    return { id: Number((row as { id: number }).id), phoneNumber: offer!.phoneNumber };
  };
  const send = (user: TestUser, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    platform.request('POST', '/user/sms', { token: user.token, body, headers });
  const ledger = (user: TestUser) => knex()('balance_transactions').where({ userId: user.id }).whereNot({ kind: 'adjustment' }).orderBy('id');
  const messages = (user: TestUser) => knex()('sms_messages').where({ userId: user.id }).orderBy('id');
  const balance = async (user: TestUser) => Number((await knex()('user_balances').where({ userId: user.id }).first())?.micros ?? 0);
  /** What the carrier was asked to send. */
  const carried = () => (twilio ? twilio.messages.messages.size : undefined);

  it('sends from the caller\'s number, charges each segment once in the ledger, and stores the message', async () => {
    const user = await createTestUser(knex(), { balanceUsd: 1 });
    const from = await ownNumber(user);
    const sent = await send(user, { from: from.id, to: RECIPIENT, body: 'Your appointment is confirmed for 3 pm.' });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body).toEqual({
      message: 'SMS sent successfully',
      data: { sms_id: expect.any(Number), from: from.phoneNumber, to: RECIPIENT, body: 'Your appointment is confirmed for 3 pm.', segments: 1, cost: 0.01, currency: 'USD', status: 'sent' },
    });
    const [stored] = await messages(user);
    expect(stored).toMatchObject({
      id: sent.body.data.sms_id, direction: 'outbound', phoneNumberId: from.id, fromNumber: from.phoneNumber, toNumber: RECIPIENT, encoding: 'GSM-7', segments: 1,
      costMicros: 10_000, provider: carrier.name, providerMessageId: expect.stringMatching(/^SM[0-9a-f]{32}$/),
    });
    expect(['queued', 'sent', 'delivered']).toContain(stored.status);
    expect(await ledger(user)).toEqual([expect.objectContaining({ amountMicros: -10_000, kind: 'sms', reference: `sms:${stored.id}`, idempotencyKey: `sms-${stored.id}` })]);
    expect(await balance(user)).toBe(usdToMicros(0.99));
    if (twilio) {
      const request = twilio.requests.filter((entry) => entry.method === 'POST' && entry.path.endsWith('/Messages.json')).at(-1)!;
      expect(Object.fromEntries(request.form)).toEqual({
        From: from.phoneNumber, To: RECIPIENT, Body: 'Your appointment is confirmed for 3 pm.',
        StatusCallback: `https://parley.example.test/api/telephony/twilio/messages/status?sms_id=${stored.id}`,
      });
    } else {
      expect(platform.sandboxCarrier!.messages.get(stored.providerMessageId)).toMatchObject({ from: from.phoneNumber, to: RECIPIENT, direction: 'outbound-api' });
    }

    const listed = await platform.request('GET', '/user/sms', { token: user.token });
    expect(listed.body).toMatchObject({ total: 1, data: [{ id: stored.id, direction: 'outbound', from: from.phoneNumber, to: RECIPIENT, segments: 1, cost: 0.01, sms_sid: stored.providerMessageId }] });
  });

  it('charges a long or non-Latin message by its segments, and takes `from` as a string of digits and `to` with spaces', async () => {
    const user = await createTestUser(knex(), { balanceUsd: 1 });
    const from = await ownNumber(user);
    const long = await send(user, { from: String(from.id), to: '+1 415 555 0123', body: 'a'.repeat(161) });
    expect(long.body.data).toMatchObject({ to: RECIPIENT, segments: 2, cost: 0.02 });
    const greek = await send(user, { from: from.id, to: RECIPIENT, body: 'Καλημέρα! Το ραντεβού σας επιβεβαιώθηκε για αύριο στις 3 μ.μ. Ευχαριστούμε.' });
    expect(greek.body.data).toMatchObject({ segments: 2, cost: 0.02 });
    expect((await ledger(user)).map((entry) => entry.amountMicros)).toEqual([-20_000, -20_000]);
  });

  it('answers each refusal of the contract with 400 and its text, charging and sending nothing', async () => {
    const user = await createTestUser(knex(), { balanceUsd: 1 });
    const from = await ownNumber(user);
    const refusals: [Record<string, unknown>, string][] = [
      [{ from: from.id, to: '12345', body: 'Hi' }, 'Invalid phone number format'],
      [{ from: from.id, to: '+1415555', body: 'Hi' }, 'Invalid phone number format'],
      [{ from: from.id, to: '14155550123', body: 'Hi' }, 'Invalid phone number format'],
      [{ from: from.id, to: '+1 (415) 555-0123x', body: 'Hi' }, 'Invalid phone number format'],
      [{ from: 999_999_999, to: RECIPIENT, body: 'Hi' }, 'From number not found'],
      [{ from: (await ownNumber(await createTestUser(knex()))).id, to: RECIPIENT, body: 'Hi' }, 'From number not found'],
      [{ from: (await ownNumber(user, { status: 'released' })).id, to: RECIPIENT, body: 'Hi' }, 'From number not found'],
      [{ from: (await ownNumber(user, { smsCapable: false })).id, to: RECIPIENT, body: 'Hi' }, 'Phone number is not SMS-capable'],
      [{ from: (await ownNumber(user, { type: 'sip', smsCapable: false })).id, to: RECIPIENT, body: 'Hi' }, 'Phone number is not SMS-capable'],
      [{ from: (await ownNumber(user, { status: 'past_due' })).id, to: RECIPIENT, body: 'Hi' }, "Phone number's subscription is not active. Please update your payment method."],
      // The toll-fraud guard of calls: only the countries of the account's own numbers.
      [{ from: from.id, to: '+442071838750', body: 'Hi' }, 'SMS to GB numbers are not allowed for this account: it texts the countries of its own phone numbers (US).'],
    ];
    const before = carried();
    for (const [body, text] of refusals) {
      const refused = await send(user, body);
      expect([refused.status, refused.body], JSON.stringify(body)).toEqual([400, { message: text }]);
    }
    const poor = await createTestUser(knex(), { balanceUsd: 0.005 });
    const poorFrom = await ownNumber(poor);
    expect(await send(poor, { from: poorFrom.id, to: RECIPIENT, body: 'Hi' })).toMatchObject({ status: 400, body: { message: 'Insufficient balance to send SMS' } });
    expect(await messages(user)).toEqual([]);
    expect(await messages(poor)).toEqual([]);
    expect(await ledger(user)).toEqual([]);
    expect(await balance(poor)).toBe(5_000);
    expect(carried()).toBe(before);
  });

  it('answers 422 in Laravel\'s shape for missing or oversized fields', async () => {
    const user = await createTestUser(knex(), { balanceUsd: 1 });
    const missing = await send(user, {});
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({
      message: 'The from field is required. (and 2 more errors)',
      errors: { from: ['The from field is required.'], to: ['The to field is required.'], body: ['The body field is required.'] },
    });
    const long = await send(user, { from: 'first', to: RECIPIENT, body: 'a'.repeat(301) });
    expect(long.body.errors).toEqual({ from: ['The from field must be an integer.'], body: ['The body field must not be greater than 300 characters.'] });
  });

  it('answers a message the carrier refuses with 500, its reason, and no charge left', async () => {
    const user = await createTestUser(knex(), { balanceUsd: 1 });
    const from = await ownNumber(user);
    const refused = await send(user, { from: from.id, to: LANDLINE, body: 'Hello' });
    expect(refused.status).toBe(500);
    expect(refused.body).toEqual({ message: 'Failed to send SMS', error: expect.stringMatching(/not a valid mobile number/) });
    if (twilio) expect(refused.body.error).toMatch(/\(error 21614\)/);
    const [stored] = await messages(user);
    expect(stored).toMatchObject({ status: 'failed', costMicros: 0, providerMessageId: null, errorMessage: refused.body.error });
    expect((await ledger(user)).map((entry) => [entry.kind, entry.amountMicros])).toEqual([['sms', -10_000], ['sms_refund', 10_000]]);
    expect(await balance(user)).toBe(usdToMicros(1));
  });

  it('sends once per Idempotency-Key: a retry answers the first message, another message under the key is a conflict', async () => {
    const user = await createTestUser(knex(), { balanceUsd: 1 });
    const from = await ownNumber(user);
    const request = { from: from.id, to: RECIPIENT, body: 'Only once, please.' };
    const key = { 'Idempotency-Key': `sms-${crypto.randomUUID()}` };
    const [first, second] = await Promise.all([send(user, request, key), send(user, request, key)]);
    const answers = [first, second].filter((answer) => answer.status === 200);
    expect(answers.length).toBeGreaterThanOrEqual(1);
    // Sent at the same moment, one may find the other still sending.
    for (const other of [first, second].filter((answer) => answer.status !== 200)) {
      expect(other).toMatchObject({ status: 409, body: { message: 'A message with this Idempotency-Key is still being sent.' } });
    }
    const third = await send(user, request, key);
    expect(third.body).toEqual(answers[0]!.body);
    expect(await send(user, { ...request, body: 'Something else.' }, key)).toMatchObject({ status: 409, body: { message: 'This Idempotency-Key was already used for another message.' } });
    expect(await messages(user)).toHaveLength(1);
    expect(await ledger(user)).toHaveLength(1);
  });
});
