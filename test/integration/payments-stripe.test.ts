import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceMicros } from '../../src/billing/ledger.ts';
import { createStripePayments } from '../../src/providers/payments/stripe.ts';
import { PaymentMethodRejectedError, type PaymentProvider } from '../../src/providers/payments/types.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { paymentIntentEvent, stripeSignatureHeader, TEST_WEBHOOK_SECRET } from '../support/payments.ts';
import { listenOnLoopback, type LoopbackServer } from '../support/ports.ts';
import { startStripeMock, type StripeMock } from '../support/stripe-mock.ts';
import { createTestUser } from '../support/users.ts';

function stripeAt(url: string): PaymentProvider {
  const { hostname, port } = new URL(url);
  return createStripePayments({
    provider: 'stripe',
    secretKey: 'sk_test_parley',
    webhookSecret: TEST_WEBHOOK_SECRET,
    apiBase: { protocol: 'http', host: hostname, port: Number(port) },
  });
}

const charge = (key: string) => ({
  customerId: 'cus_parley',
  paymentMethodId: 'pm_card_visa',
  amountMicros: 20_000_000,
  description: 'Parley balance top-up',
  idempotencyKey: key,
  offSession: true,
  metadata: { parley_purpose: 'top_up', parley_top_up_id: '7' },
});

describe('the Stripe adapter against stripe-mock', () => {
  let mock: StripeMock;
  let stripe: PaymentProvider;
  beforeAll(async () => {
    mock = await startStripeMock();
    stripe = stripeAt(mock.url);
  });
  afterAll(() => mock.close());

  const last = () => mock.requests.at(-1)!;

  it('creates a customer for a user, and a SetupIntent for it', async () => {
    expect(await stripe.createCustomer({ userId: 42, email: 'ada@example.test', name: 'Ada' })).toMatch(/^cus_/);
    expect(last()).toMatchObject({ method: 'POST', path: '/v1/customers' });
    expect(last().headers.authorization).toBe('Bearer sk_test_parley');
    expect(Object.fromEntries(last().form)).toMatchObject({ email: 'ada@example.test', name: 'Ada', 'metadata[parley_user_id]': '42' });
    const { clientSecret } = await stripe.createSetupIntent('cus_parley');
    expect(clientSecret).toMatch(/^seti_\w+_secret_\w+$/);
    expect(Object.fromEntries(last().form)).toMatchObject({ customer: 'cus_parley', usage: 'off_session' });
  });

  it('attaches a PaymentMethod and reads its card, sets the default and detaches', async () => {
    const card = await stripe.attachPaymentMethod('cus_parley', 'pm_card_visa');
    expect(card).toEqual({ id: expect.stringMatching(/^pm_/), brand: 'visa', last4: '4242', expMonth: expect.any(Number), expYear: expect.any(Number) });
    expect(last()).toMatchObject({ method: 'POST', path: '/v1/payment_methods/pm_card_visa/attach' });
    expect(last().form.get('customer')).toBe('cus_parley');
    await stripe.setDefaultPaymentMethod('cus_parley', card.id);
    expect(last().path).toBe('/v1/customers/cus_parley');
    expect(last().form.get('invoice_settings[default_payment_method]')).toBe(card.id);
    await stripe.detachPaymentMethod(card.id);
    expect(last().path).toBe(`/v1/payment_methods/${card.id}/detach`);
  });

  it('charges off-session with confirm and the idempotency key, and sends the same key on a retry', async () => {
    const outcome = await stripe.charge(charge('parley-top-up-7'));
    // stripe-mock's fixture intent is `requires_payment_method`: a payment that did not go through.
    expect(outcome).toMatchObject({ status: 'failed', paymentId: expect.stringMatching(/^pi_/) });
    const sent = last();
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/payment_intents' });
    expect(sent.headers['idempotency-key']).toBe('parley-top-up-7');
    expect(Object.fromEntries(sent.form)).toMatchObject({
      amount: '2000',
      currency: 'usd',
      customer: 'cus_parley',
      payment_method: 'pm_card_visa',
      confirm: 'true',
      off_session: 'true',
      'metadata[parley_top_up_id]': '7',
      'automatic_payment_methods[allow_redirects]': 'never',
    });
    await stripe.charge(charge('parley-top-up-7'));
    expect(last().headers['idempotency-key']).toBe('parley-top-up-7');
  });

  it('reads a payment back', async () => {
    const payment = await stripe.retrievePayment('pi_parley');
    expect(last()).toMatchObject({ method: 'GET', path: '/v1/payment_intents/pi_parley' });
    expect(payment).toMatchObject({ id: expect.stringMatching(/^pi_/), status: 'failed', amountMicros: expect.any(Number) });
  });

  it('refuses an amount that is not whole cents before asking Stripe', async () => {
    const before = mock.requests.length;
    await expect(stripe.charge({ ...charge('fraction'), amountMicros: 1_234_567 })).rejects.toThrow(RangeError);
    expect(mock.requests).toHaveLength(before);
  });
});

describe("the Stripe adapter's reading of Stripe's answers", () => {
  let server: LoopbackServer;
  let stripe: PaymentProvider;
  let answer: { status: number; body: unknown } = { status: 200, body: {} };
  beforeAll(async () => {
    server = await listenOnLoopback(http.createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body)));
    }));
    stripe = stripeAt(server.url);
  });
  afterAll(() => server.close());

  const intent = (status: string, extra: Record<string, unknown> = {}) => ({ id: 'pi_answer', object: 'payment_intent', amount: 2000, status, metadata: {}, last_payment_error: null, ...extra });

  it('maps succeeded, processing and requires_action intents', async () => {
    answer = { status: 200, body: intent('succeeded') };
    expect(await stripe.charge(charge('a'))).toEqual({ status: 'succeeded', paymentId: 'pi_answer' });
    answer = { status: 200, body: intent('processing') };
    expect(await stripe.charge(charge('b'))).toEqual({ status: 'processing', paymentId: 'pi_answer' });
  });

  it('hands a charge the user makes that asks for 3-D Secure back with its client secret, and fails it off-session', async () => {
    answer = { status: 200, body: intent('requires_action', { client_secret: 'pi_answer_secret_abc', next_action: { type: 'use_stripe_sdk', use_stripe_sdk: {} } }) };
    expect(await stripe.charge({ ...charge('c'), offSession: false })).toEqual({ status: 'requires_action', paymentId: 'pi_answer', clientSecret: 'pi_answer_secret_abc' });
    expect(await stripe.charge(charge('c2'))).toMatchObject({ status: 'failed', paymentId: 'pi_answer', reason: 'authentication_required' });
    expect(await stripe.retrievePayment('pi_answer')).toMatchObject({ status: 'requires_action', clientSecret: 'pi_answer_secret_abc' });
    // What Stripe answers an off-session charge of such a card: a card error, the intent back to requires_payment_method.
    answer = {
      status: 402,
      body: { error: { type: 'card_error', code: 'authentication_required', decline_code: 'authentication_required', message: 'Your card was declined. This transaction requires authentication.', payment_intent: intent('requires_payment_method') } },
    };
    expect(await stripe.charge(charge('c3'))).toEqual({ status: 'failed', paymentId: 'pi_answer', reason: 'authentication_required', message: 'Your card was declined. This transaction requires authentication.' });
  });

  it("maps card errors to the decline's reason, keeping the intent's id", async () => {
    const cardError = (code: string, declineCode?: string) => ({
      status: 402,
      body: { error: { type: 'card_error', code, decline_code: declineCode, message: 'Your card has insufficient funds.', payment_intent: intent('requires_payment_method') } },
    });
    answer = cardError('card_declined', 'insufficient_funds');
    expect(await stripe.charge(charge('d'))).toEqual({ status: 'failed', paymentId: 'pi_answer', reason: 'insufficient_funds', message: 'Your card has insufficient funds.' });
    answer = cardError('card_declined', 'generic_decline');
    expect(await stripe.charge(charge('f'))).toMatchObject({ reason: 'card_declined' });
  });

  it('refuses a PaymentMethod Stripe does not know as the user\'s input', async () => {
    answer = { status: 400, body: { error: { type: 'invalid_request_error', code: 'resource_missing', message: "No such PaymentMethod: 'pm_nope'" } } };
    await expect(stripe.attachPaymentMethod('cus_parley', 'pm_nope')).rejects.toThrow(PaymentMethodRejectedError);
  });
});

describe('payment endpoints on the Stripe provider against stripe-mock', () => {
  let mock: StripeMock;
  let platform: TestPlatform;
  beforeAll(async () => {
    mock = await startStripeMock();
    platform = await startTestPlatform({
      env: { PAYMENTS_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_parley', STRIPE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET, STRIPE_API_BASE: mock.url },
    });
  });
  afterAll(async () => {
    await platform.close();
    await mock.close();
  });

  it('attaches a card, tops up with an idempotency key, and credits once when the webhook confirms', async () => {
    const user = await createTestUser(platform.database.knex);
    const added = await platform.request('POST', '/user/payment-methods', { token: user.token, body: { payment_method: 'pm_card_visa' } });
    expect(added.status).toBe(201);
    expect(added.body.data).toMatchObject({ id: expect.stringMatching(/^pm_/), brand: 'visa', last4: '4242', is_default: true });
    const paths = mock.requests.map((request) => `${request.method} ${request.path}`);
    expect(paths).toEqual(expect.arrayContaining(['POST /v1/customers', 'POST /v1/payment_methods/pm_card_visa/attach']));
    expect(mock.requests.at(-1)!.form.get('invoice_settings[default_payment_method]')).toBe(added.body.data.id);

    // stripe-mock answers every PaymentIntent as requires_payment_method, so the top-up is refused at first ...
    const refused = await platform.request('POST', '/user/balance/top-up', { token: user.token, body: { amount: 20 }, headers: { 'idempotency-key': 'stripe-1' } });
    expect(refused.status).toBe(402);
    const sent = mock.requests.at(-1)!;
    expect(sent.path).toBe('/v1/payment_intents');
    expect(sent.headers['idempotency-key']).toMatch(/^parley-top-up-\d+$/);
    expect(sent.form.get('amount')).toBe('2000');
    const topUp = await platform.database.knex('top_ups').where({ userId: user.id }).first();
    expect(sent.form.get('metadata[parley_top_up_id]')).toBe(String(topUp.id));

    // ... and Stripe's later word that the payment succeeded credits it, once.
    const event = paymentIntentEvent({ type: 'payment_intent.succeeded', paymentId: topUp.paymentId, amountCents: 2000, metadata: Object.fromEntries([...sent.form].filter(([name]) => name.startsWith('metadata[')).map(([name, value]) => [name.slice(9, -1), value])) });
    for (let delivery = 0; delivery < 2; delivery++) {
      const received = await platform.request('POST', '/billing/stripe/webhook', { body: event, headers: { 'content-type': 'application/json', 'stripe-signature': stripeSignatureHeader(event) } });
      expect(received.status).toBe(200);
    }
    expect(await balanceMicros(platform.database.knex, user.id)).toBe(20_000_000);
    const forged = await platform.request('POST', '/billing/stripe/webhook', { body: event, headers: { 'content-type': 'application/json', 'stripe-signature': stripeSignatureHeader(event, 'whsec_forged') } });
    expect(forged.status).toBe(403);
  });
});

describe('a top-up with a card that asks for 3-D Secure, on the Stripe provider against stripe-mock', () => {
  let mock: StripeMock;
  let platform: TestPlatform;
  beforeAll(async () => {
    // Every PaymentIntent stripe-mock answers waits for authentication, as Stripe answers an on-session charge of 4000 0027 6000 3184.
    mock = await startStripeMock({ paymentIntentStatus: 'requires_action' });
    platform = await startTestPlatform({
      env: { PAYMENTS_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_parley', STRIPE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET, STRIPE_API_BASE: mock.url },
    });
  });
  afterAll(async () => {
    await platform.close();
    await mock.close();
  });

  it('charges on-session, answers 402 with the client secret, and credits once when the webhook says it succeeded', async () => {
    const user = await createTestUser(platform.database.knex);
    expect((await platform.request('POST', '/user/payment-methods', { token: user.token, body: { payment_method: 'pm_card_authenticationRequired' } })).status).toBe(201);
    const asked = await platform.request('POST', '/user/balance/top-up', { token: user.token, body: { amount: 20 }, headers: { 'idempotency-key': 'three-d-secure' } });
    expect(asked.status).toBe(402);
    expect(asked.body).toEqual({
      message: 'Your card requires authentication. Confirm the payment with Stripe.js using data.client_secret; the balance is credited when it succeeds.',
      data: { id: expect.any(Number), amount: 20, status: 'requires_action', payment_id: expect.stringMatching(/^pi_/), client_secret: expect.stringMatching(/^pi_\w+_secret_\w+$/), balance: 0, created_at: expect.any(String) },
    });
    const sent = mock.requests.find((request) => request.path === '/v1/payment_intents')!;
    expect(Object.fromEntries(sent.form)).toMatchObject({ confirm: 'true', off_session: 'false' });

    // Asked again before the webhook: the payment is read afresh, still waiting, and nothing is charged again.
    const again = await platform.request('POST', '/user/balance/top-up', { token: user.token, body: { amount: 20 }, headers: { 'idempotency-key': 'three-d-secure' } });
    expect(again).toMatchObject({ status: 402, body: { data: { id: asked.body.data.id, client_secret: asked.body.data.client_secret } } });
    expect(mock.requests.filter((request) => request.path === '/v1/payment_intents')).toHaveLength(1);
    expect(mock.requests.at(-1)).toMatchObject({ method: 'GET', path: `/v1/payment_intents/${asked.body.data.payment_id}` });

    const metadata = Object.fromEntries([...sent.form].filter(([name]) => name.startsWith('metadata[')).map(([name, value]) => [name.slice(9, -1), value]));
    const event = paymentIntentEvent({ type: 'payment_intent.succeeded', paymentId: asked.body.data.payment_id, amountCents: 2000, metadata });
    for (let delivery = 0; delivery < 2; delivery++) {
      const received = await platform.request('POST', '/billing/stripe/webhook', { body: event, headers: { 'content-type': 'application/json', 'stripe-signature': stripeSignatureHeader(event) } });
      expect(received.status).toBe(200);
    }
    expect(await balanceMicros(platform.database.knex, user.id)).toBe(20_000_000);
    const settled = await platform.request('POST', '/user/balance/top-up', { token: user.token, body: { amount: 20 }, headers: { 'idempotency-key': 'three-d-secure' } });
    expect(settled).toMatchObject({ status: 200, body: { data: { status: 'succeeded', balance: 20 } } });
    expect(await platform.database.knex('balance_transactions').where({ userId: user.id, kind: 'top_up' })).toHaveLength(1);
  });
});
