import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { failureReasonOf, microsToCents, verifyStripeEvent } from '../../src/providers/payments/stripe-events.ts';
import { paymentIntentEvent, stripeSignatureHeader, TEST_WEBHOOK_SECRET } from '../support/payments.ts';

describe('Stripe amounts', () => {
  it('turns micro-dollars into whole cents and refuses anything else', () => {
    expect(microsToCents(20_000_000)).toBe(2000);
    expect(microsToCents(10_000)).toBe(1);
    for (const micros of [0, -10_000, 5_000, 1.5e4 + 1]) expect(() => microsToCents(micros), String(micros)).toThrow(RangeError);
  });
});

describe('Stripe failure reasons', () => {
  it("prefers the issuer's decline code where it says more than card_declined", () => {
    expect(failureReasonOf({ code: 'card_declined', decline_code: 'insufficient_funds' })).toBe('insufficient_funds');
    expect(failureReasonOf({ code: 'card_declined', decline_code: 'authentication_required' })).toBe('authentication_required');
    expect(failureReasonOf({ code: 'card_declined', decline_code: 'generic_decline' })).toBe('card_declined');
    expect(failureReasonOf({ code: 'expired_card' })).toBe('expired_card');
    expect(failureReasonOf(null)).toBe('card_declined');
  });
});

describe('Stripe webhook events', () => {
  const body = paymentIntentEvent({ type: 'payment_intent.succeeded', paymentId: 'pi_1', amountCents: 2500, metadata: { parley_purpose: 'top_up' } });

  it('reads a signed payment_intent event', () => {
    expect(verifyStripeEvent(TEST_WEBHOOK_SECRET, Buffer.from(body), stripeSignatureHeader(body))).toEqual({
      id: JSON.parse(body).id,
      type: 'payment_intent.succeeded',
      payment: { id: 'pi_1', status: 'succeeded', amountMicros: 25_000_000, failureReason: null, metadata: { parley_purpose: 'top_up' } },
    });
  });

  it('believes nothing without a secret, a signature, the right secret or a timestamp within five minutes either way', () => {
    const payload = Buffer.from(body);
    expect(verifyStripeEvent(undefined, payload, stripeSignatureHeader(body))).toBeUndefined();
    expect(verifyStripeEvent(TEST_WEBHOOK_SECRET, payload, '')).toBeUndefined();
    expect(verifyStripeEvent(TEST_WEBHOOK_SECRET, payload, stripeSignatureHeader(body, 'whsec_other'))).toBeUndefined();
    expect(verifyStripeEvent(TEST_WEBHOOK_SECRET, payload, stripeSignatureHeader(body, TEST_WEBHOOK_SECRET, Math.floor(Date.now() / 1000) - 301))).toBeUndefined();
    expect(verifyStripeEvent(TEST_WEBHOOK_SECRET, payload, stripeSignatureHeader(body, TEST_WEBHOOK_SECRET, Math.floor(Date.now() / 1000) + 301))).toBeUndefined();
    expect(verifyStripeEvent(TEST_WEBHOOK_SECRET, payload, stripeSignatureHeader(body, TEST_WEBHOOK_SECRET, Math.floor(Date.now() / 1000) + 290))).toBeDefined();
  });

  it('refuses a signed body that is not an event', () => {
    for (const text of ['not json', '[]', '{"id":"evt_1","type":"x"}']) {
      expect(verifyStripeEvent(TEST_WEBHOOK_SECRET, Buffer.from(text), stripeSignatureHeader(text)), text).toBeUndefined();
    }
  });
});

describe('payments configuration', () => {
  it('is the sandbox unless Stripe is chosen, and Stripe needs its key and webhook secret', () => {
    expect(loadConfig({}).payments).toEqual({ provider: 'sandbox', webhookSecret: undefined });
    expect(() => loadConfig({ PAYMENTS_PROVIDER: 'stripe' })).toThrow(/STRIPE_SECRET_KEY/);
    expect(() => loadConfig({ PAYMENTS_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_1' })).toThrow(/STRIPE_WEBHOOK_SECRET/);
    expect(() => loadConfig({ PAYMENTS_PROVIDER: 'paypal' })).toThrow(/PAYMENTS_PROVIDER/);
    expect(loadConfig({ PAYMENTS_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_1', STRIPE_WEBHOOK_SECRET: 'whsec_1', STRIPE_API_BASE: 'http://127.0.0.1:12111' }).payments).toEqual({
      provider: 'stripe',
      secretKey: 'sk_test_1',
      webhookSecret: 'whsec_1',
      apiBase: { protocol: 'http', host: '127.0.0.1', port: 12111 },
    });
  });
});
