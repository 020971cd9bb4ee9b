import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { startFakeTwilio, type FakeTwilio } from '../fakes/twilio/server.ts';
import { stripeSignatureHeader, TEST_WEBHOOK_SECRET } from '../support/payments.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { startStripeMock, type StripeMock } from '../support/stripe-mock.ts';
import { createTestUser } from '../support/users.ts';

/**
 * Everything the api and the worker log, at the most verbose level, while they talk to Twilio and Stripe, also
 * when those calls fail (a failure is where a whole request, credentials included, tends to get logged).
 */
describe('secrets in the logs', () => {
  const appKey = randomBytes(32).toString('base64');
  const stripeKey = `sk_test_${randomBytes(12).toString('hex')}`;
  let logged = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged += chunk.toString();
      done();
    },
  });
  let twilio: FakeTwilio;
  let stripe: StripeMock;
  let platform: TestPlatform;
  let stripeClosed = false;

  beforeAll(async () => {
    [twilio, stripe] = await Promise.all([startFakeTwilio(), startStripeMock({ paymentIntentStatus: 'succeeded' })]);
    platform = await startTestPlatform({
      worker: true,
      logger: createLogger({ log: { level: 'trace', pretty: false } }, sink),
      env: {
        APP_KEY: appKey,
        TELEPHONY_PROVIDER: 'twilio', TWILIO_ACCOUNT_SID: twilio.accountSid, TWILIO_AUTH_TOKEN: twilio.authToken, TWILIO_API_BASE: twilio.url,
        PAYMENTS_PROVIDER: 'stripe', STRIPE_SECRET_KEY: stripeKey, STRIPE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET, STRIPE_API_BASE: stripe.url,
      },
    });
  });
  afterAll(async () => {
    await platform.close();
    await Promise.all([twilio.close(), stripeClosed ? undefined : stripe.close()]);
  });

  it('never shows a credential, even in the errors of failed Twilio and Stripe calls', async () => {
    const user = await createTestUser(platform.database.knex);
    // A test card of its own: stripe-mock answers an attach with the id it was given, which is unique per database.
    const card = await platform.request('POST', '/user/payment-methods', { token: user.token, body: { payment_method: 'pm_card_visa_debit' } });
    expect(card.status).toBe(201);
    const offers = await platform.request<{ data: { phone_number: string }[] }>('GET', '/user/phone-numbers/search?country_code=US', { token: user.token });
    expect(offers.status).toBe(200);

    // The purchase's first try at Twilio loses its connection; the activity fails once and is retried.
    twilio.dropNext('/IncomingPhoneNumbers');
    const bought = await platform.request('POST', '/user/phone-numbers/purchase', { token: user.token, body: { phone_number: offers.body.data[0]!.phone_number } });
    expect(bought.status).toBe(201);
    // A search whose connection to Twilio is lost is a 500, logged with its error.
    twilio.dropNext('/AvailablePhoneNumbers');
    expect((await platform.request('GET', '/user/phone-numbers/search?country_code=US', { token: user.token })).status).toBe(500);

    const event = JSON.stringify({ id: 'evt_forged', object: 'event', type: 'payment_intent.succeeded', data: { object: {} } });
    const forged = await platform.request('POST', '/billing/stripe/webhook', { body: event, headers: { 'content-type': 'application/json', 'stripe-signature': stripeSignatureHeader(event, 'whsec_forged') } });
    expect(forged.status).toBe(403);
    // Stripe unreachable: adding a card is a 500, logged with Stripe's connection error.
    stripeClosed = true;
    await stripe.close();
    expect((await platform.request('POST', '/user/payment-methods', { token: user.token, body: { payment_method: 'pm_card_amex' } })).status).toBe(500);

    // The failures above were logged, by the worker (Temporal's activity failure) and by the api.
    expect(logged).toMatch(/"activityType":"provisionPhoneNumber".*socket hang up.*"msg":"Activity failed"/);
    expect(logged).toMatch(/socket hang up.*"msg":"unexpected error"/);
    expect(logged).toMatch(/connection to Stripe.*"msg":"unexpected error"/);
    const basicCredentials = Buffer.from(`${twilio.accountSid}:${twilio.authToken}`).toString('base64');
    for (const secret of [twilio.authToken, basicCredentials, stripeKey, TEST_WEBHOOK_SECRET, appKey, Buffer.from(appKey, 'base64').toString('hex')]) {
      expect(logged.includes(secret), `a secret in the logs: ${secret.slice(0, 6)}…`).toBe(false);
    }
  });
});
