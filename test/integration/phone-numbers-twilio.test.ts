import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { twilioCallbackPaths } from '../../src/providers/telephony/twilio.ts';
import { startFakeTwilio, type FakeTwilio } from '../fakes/twilio/server.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { TEST_WEBHOOK_SECRET } from '../support/payments.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { startStripeMock, type StripeMock } from '../support/stripe-mock.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

const PUBLIC_URL = 'https://parley.example.test';

describe('buying numbers on Twilio, paid through Stripe (a fake of Twilio\'s REST API, stripe-mock)', () => {
  let twilio: FakeTwilio;
  let stripe: StripeMock;
  let platform: TestPlatform;
  // One user with a card for the file: stripe-mock answers an attach with the id it was given, and ids are
  // unique across the database a run shares (payments-stripe.test.ts attaches pm_card_visa).
  let user: TestUser;

  beforeAll(async () => {
    [twilio, stripe] = await Promise.all([startFakeTwilio(), startStripeMock({ paymentIntentStatus: 'succeeded' })]);
    platform = await startTestPlatform({
      worker: true,
      env: {
        PUBLIC_URL,
        // A "month" of two seconds, so a renewal happens within the test.
        SUBSCRIPTION_PERIOD: '2s',
        TELEPHONY_PROVIDER: 'twilio', TWILIO_ACCOUNT_SID: twilio.accountSid, TWILIO_AUTH_TOKEN: twilio.authToken, TWILIO_API_BASE: twilio.url,
        PAYMENTS_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_parley', STRIPE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET, STRIPE_API_BASE: stripe.url,
      },
    });
    user = await createTestUser(platform.database.knex);
    expect((await platform.request('POST', '/user/payment-methods', { token: user.token, body: { payment_method: 'pm_card_mastercard' } })).status).toBe(201);
  });
  afterAll(async () => {
    await platform.close();
    await Promise.all([twilio.close(), stripe.close()]);
  });

  const knex = () => platform.database.knex;
  const row = (id: number) => knex()('phone_numbers').where({ id }).first();
  const search = async (query: string) => {
    const found = await platform.request<{ data: { phone_number: string; price: number; address_requirements: string; sms_capable: boolean }[] }>('GET', `/user/phone-numbers/search?${query}`, { token: user.token });
    expect(found.status).toBe(200);
    return found.body.data;
  };
  const purchase = (phoneNumber: string) => platform.request<{ error?: string; data?: { id: number } }>('POST', '/user/phone-numbers/purchase', { token: user.token, body: { phone_number: phoneNumber } });
  const chargesFor = (id: number) => stripe.requests.filter((request) => request.path === '/v1/payment_intents' && request.form.get('metadata[parley_phone_number_id]') === String(id));

  it('buys a number pointed at Parley, renames it, gives it to an assistant, renews it and releases it', async () => {
    const offers = await search('country_code=US&contains=41');
    expect(offers[0]).toMatchObject({ price: 1.15, address_requirements: 'none', sms_capable: true });

    const bought = await purchase(offers[0]!.phone_number);
    expect(bought.status).toBe(201);
    const id = bought.body.data!.id;
    const number = await row(id);
    expect(number).toMatchObject({ status: 'active', provider: 'twilio', providerNumberId: expect.stringMatching(/^PN[0-9a-f]{32}$/) });
    expect(twilio.numbers.incoming.get(number.providerNumberId)).toMatchObject({
      phone_number: offers[0]!.phone_number, friendly_name: `parley-phone-number-${id}`,
      voice_url: `${PUBLIC_URL}${twilioCallbackPaths.voice}`, status_callback: `${PUBLIC_URL}${twilioCallbackPaths.status}`, sms_url: `${PUBLIC_URL}${twilioCallbackPaths.messages}`,
    });
    const [first] = chargesFor(id);
    expect(first!.headers['idempotency-key']).toBeTruthy();
    expect(Object.fromEntries(first!.form)).toMatchObject({ amount: '115', currency: 'usd', off_session: 'true', 'metadata[parley_period]': '1' });

    const renamed = await platform.request('PUT', `/user/phone-numbers/${id}`, { token: user.token, body: { nickname: 'Front desk' } });
    expect(renamed).toMatchObject({ status: 200, body: { data: { nickname: 'Front desk' } } });
    const assistant = await createTestAssistant(platform, user, { type: 'inbound', phone_number_id: id });

    // Renewed by its workflow, each period charged once under a key of its own.
    await expect.poll(async () => (await row(id)).period, { timeout: 10_000, interval: 200 }).toBeGreaterThanOrEqual(2);
    const keys = chargesFor(id).map((request) => request.headers['idempotency-key']);
    expect(new Set(keys).size).toBe(keys.length);

    expect((await platform.request('DELETE', `/user/phone-numbers/${id}`, { token: user.token })).status).toBe(200);
    await expect.poll(async () => (await row(id)).status, { timeout: 10_000, interval: 200 }).toBe('released');
    expect(twilio.numbers.incoming.has(number.providerNumberId)).toBe(false);
    expect(await knex()('assistants').where({ id: assistant.id }).first()).toMatchObject({ phoneNumberId: null });
  });

  it('charges nothing for a number Twilio will not give, and answers the provider failure', async () => {
    // British numbers need an address on file at Twilio, which this account has not given.
    const [british] = await search('country_code=GB');
    expect(british).toMatchObject({ address_requirements: 'local', sms_capable: false });
    const refused = await purchase(british!.phone_number);
    expect(refused).toMatchObject({ status: 500, body: { error: 'Failed to purchase phone number from provider. Please contact support.' } });
    const number = await knex()('phone_numbers').where({ phoneNumber: british!.phone_number }).first();
    expect(number).toMatchObject({ status: 'failed', statusReason: expect.stringContaining('21631') });
    expect(chargesFor(number.id)).toEqual([]);
    expect([...twilio.numbers.incoming.values()].map((held) => held.phone_number)).not.toContain(british!.phone_number);
  });
});
