import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAutoRecharger } from '../../src/billing/auto-recharge.ts';
import { recordEntry } from '../../src/billing/ledger.ts';
import { handlePaymentEvent } from '../../src/billing/payment-events.ts';
import type { PaymentEvent } from '../../src/providers/payments/types.ts';
import { createLogger } from '../../src/logger.ts';
import { paymentIntentEvent, stripeSignatureHeader, TEST_WEBHOOK_SECRET } from '../support/payments.ts';
import type { TestPlatform } from '../support/platform.ts';
import { sandboxPayments } from '../support/sandbox-payments.ts';
import { createTestUser } from '../support/users.ts';

// What Stripe's webhook events do to top-ups and subscriptions (once, signed), and auto-recharge. Cards and
// top-ups themselves are in payments-sandbox-cards.test.ts.

describe('payment methods and top-ups on the sandbox provider', () => {
  let platform: TestPlatform;
  const { sandbox, payments, startPlatform, addCard, topUp, postEvent, balanceOf, topUpEntries } = sandboxPayments(() => platform);

  beforeAll(async () => {
    platform = await startPlatform();
  });
  afterAll(() => platform.close());

  it('fails a top-up waiting for authentication when the webhook says the authentication failed', async () => {
    const user = await createTestUser(platform.database.knex);
    await addCard(user, 'pm_card_authenticationRequired');
    const asked = await topUp(user, 10, 'not-authenticated');
    expect(asked.status).toBe(402);
    const event = paymentIntentEvent({
      type: 'payment_intent.payment_failed',
      paymentId: asked.body.data.payment_id,
      amountCents: 1000,
      declineCode: 'authentication_required',
      metadata: { parley_purpose: 'top_up', parley_top_up_id: String(asked.body.data.id), parley_user_id: String(user.id) },
    });
    expect((await postEvent(event)).status).toBe(200);
    expect(await topUp(user, 10, 'not-authenticated')).toMatchObject({ status: 402, body: { message: 'The payment failed: authentication_required (authentication_required)' } });
    expect(await balanceOf(user)).toBe(0);
  });

  it('credits a processing top-up when its webhook event arrives, once, however often it is replayed', async () => {
    const user = await createTestUser(platform.database.knex);
    await addCard(user, 'pm_card_visa');
    payments.delay(user.id);
    const pending = await topUp(user, 30);
    expect(pending.status).toBe(202);
    expect(pending.body).toMatchObject({ message: 'The payment is processing; the balance is credited when it succeeds.', data: { status: 'processing', balance: 0 } });
    const event = paymentIntentEvent({
      type: 'payment_intent.succeeded',
      paymentId: pending.body.data.payment_id,
      amountCents: 3000,
      metadata: { parley_purpose: 'top_up', parley_top_up_id: String(pending.body.data.id), parley_user_id: String(user.id) },
    });
    expect(await postEvent(event)).toMatchObject({ status: 200, body: { message: 'Received.' } });
    expect(await balanceOf(user)).toBe(30_000_000);
    expect(await postEvent(event)).toMatchObject({ status: 200 });
    // The same payment confirmed by another event (a redelivery under a new id) credits nothing either.
    expect((await postEvent(event.replace(/"evt_[0-9a-f]+"/, '"evt_other"'))).status).toBe(200);
    expect(await balanceOf(user)).toBe(30_000_000);
    expect(await topUpEntries(user)).toHaveLength(1);
  });

  it('credits once when the webhook event wins the race against the charge it confirms', async () => {
    const user = await createTestUser(platform.database.knex);
    await addCard(user, 'pm_card_visa');
    let release!: () => void;
    let delivered!: Promise<unknown>;
    payments.delay(user.id, {
      gate: new Promise<void>((resolve) => { release = resolve; }),
      charged: (input, paymentId) => {
        const event = paymentIntentEvent({ type: 'payment_intent.succeeded', paymentId, amountCents: 1500, metadata: input.metadata });
        delivered = postEvent(event).then(release);
      },
    });
    const answer = await topUp(user, 15);
    await delivered;
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ status: 'succeeded', balance: 15 });
    expect(await topUpEntries(user)).toEqual([{ amountMicros: 15_000_000 }]);
  });

  it('fails a processing top-up when its payment_failed event arrives, crediting nothing', async () => {
    const user = await createTestUser(platform.database.knex);
    await addCard(user, 'pm_card_visa');
    payments.delay(user.id);
    const pending = await topUp(user, 10, 'later-declined');
    const event = paymentIntentEvent({
      type: 'payment_intent.payment_failed',
      paymentId: pending.body.data.payment_id,
      amountCents: 1000,
      declineCode: 'insufficient_funds',
      metadata: { parley_purpose: 'top_up', parley_top_up_id: String(pending.body.data.id), parley_user_id: String(user.id) },
    });
    expect((await postEvent(event)).status).toBe(200);
    expect(await topUp(user, 10, 'later-declined')).toMatchObject({ status: 402, body: { message: 'The payment failed: insufficient_funds (insufficient_funds)' } });
    expect(await balanceOf(user)).toBe(0);
  });

  it('refuses forged, stale, future-dated and unsigned webhook events with 403, changing nothing', async () => {
    const user = await createTestUser(platform.database.knex);
    await addCard(user, 'pm_card_visa');
    payments.delay(user.id);
    const pending = await topUp(user, 40);
    const event = paymentIntentEvent({
      type: 'payment_intent.succeeded',
      paymentId: pending.body.data.payment_id,
      amountCents: 4000,
      metadata: { parley_purpose: 'top_up', parley_top_up_id: String(pending.body.data.id), parley_user_id: String(user.id) },
    });
    const forged = await postEvent(event, stripeSignatureHeader(event, 'whsec_not_the_secret'));
    expect(forged).toMatchObject({ status: 403, body: { message: 'Invalid signature.' } });
    const stale = await postEvent(event, stripeSignatureHeader(event, TEST_WEBHOOK_SECRET, Math.floor(Date.now() / 1000) - 600));
    expect(stale.status).toBe(403);
    // Signed with the right secret but dated ten minutes ahead: such a signature would outlive the tolerance.
    const future = await postEvent(event, stripeSignatureHeader(event, TEST_WEBHOOK_SECRET, Math.floor(Date.now() / 1000) + 600));
    expect(future.status).toBe(403);
    const tampered = await postEvent(event.replace('"amount":4000', '"amount":400000'), stripeSignatureHeader(event));
    expect(tampered.status).toBe(403);
    const unsigned = await platform.request('POST', '/billing/stripe/webhook', { body: event });
    expect(unsigned.status).toBe(403);
    expect(await balanceOf(user)).toBe(0);
    expect(await platform.database.knex('payment_webhook_events').where({ eventId: JSON.parse(event).id })).toEqual([]);
    // The genuine event still works afterwards: the refusals left no mark.
    expect((await postEvent(event)).status).toBe(200);
    expect(await balanceOf(user)).toBe(40_000_000);
  });

  it("hands a phone number subscription's events to its handler once, and again only when handling failed", async () => {
    const { knex } = platform.database;
    const seen: PaymentEvent[] = [];
    let failNext = true;
    const onSubscriptionPayment = (event: PaymentEvent) => {
      if (failNext) {
        failNext = false;
        return Promise.reject(new Error('the workflow could not be signalled'));
      }
      seen.push(event);
      return Promise.resolve();
    };
    const body = paymentIntentEvent({ type: 'payment_intent.payment_failed', paymentId: 'pi_renewal', amountCents: 115, metadata: { parley_purpose: 'phone_number_subscription', parley_phone_number_id: '9' } });
    const event = sandbox.verifyWebhook(Buffer.from(body), stripeSignatureHeader(body))!;
    await expect(handlePaymentEvent({ knex, onSubscriptionPayment }, event)).rejects.toThrow('could not be signalled');
    expect(await handlePaymentEvent({ knex, onSubscriptionPayment }, event)).toBe('handled');
    expect(await handlePaymentEvent({ knex, onSubscriptionPayment }, event)).toBe('duplicate');
    expect(seen).toEqual([event]);
    expect(event.payment).toMatchObject({ id: 'pi_renewal', status: 'failed', failureReason: 'card_declined', metadata: { parley_phone_number_id: '9' } });
    // Over HTTP, with no handler connected, the route logs it and answers 200.
    const other = paymentIntentEvent({ type: 'payment_intent.succeeded', paymentId: 'pi_renewal_2', amountCents: 115, metadata: { parley_purpose: 'phone_number_subscription' } });
    expect((await postEvent(other)).status).toBe(200);
    expect(await knex('payment_webhook_events').where({ eventId: JSON.parse(other).id })).toHaveLength(1);
  });

  it('recharges once per threshold crossing, and again after the balance has risen back', async () => {
    const { knex } = platform.database;
    const user = await createTestUser(knex, { balanceUsd: 12 });
    await addCard(user, 'pm_card_visa');
    const saved = await platform.request('PUT', '/user/balance/auto-recharge', { token: user.token, body: { enabled: true, threshold: 10, amount: 25 } });
    expect(saved.body).toEqual({ message: 'Auto-recharge settings saved.', data: { enabled: true, threshold: 10, amount: 25 } });
    expect((await platform.request('GET', '/user/balance/auto-recharge', { token: user.token })).body.data).toEqual({ enabled: true, threshold: 10, amount: 25 });
    const recharge = createAutoRecharger({ knex, payments: payments.provider, logger: createLogger(platform.config) });
    const spend = async (usd: number) => {
      await recordEntry(knex, { userId: user.id, amountMicros: -usd * 1_000_000, kind: 'call', idempotencyKey: `spend-${user.id}-${Math.random()}` });
      await recharge(user.id);
    };
    await spend(1);
    expect(await balanceOf(user)).toBe(11_000_000);
    await spend(2);
    expect(await balanceOf(user)).toBe(34_000_000);
    // The recharge lifted the balance over the threshold, which re-armed the rule: the next crossing recharges too.
    await spend(25);
    expect(await balanceOf(user)).toBe(34_000_000);
    expect(await knex('top_ups').where({ userId: user.id, automatic: true }).orderBy('id').pluck('status')).toEqual(['succeeded', 'succeeded']);

    await platform.request('POST', `/user/payment-methods/${(await addCard(user, 'pm_card_chargeDeclined')).body.data.id}/default`, { token: user.token });
    // A declined recharge leaves the rule disarmed: charges that stay below the threshold try no card again.
    await spend(30);
    await spend(1);
    expect(await balanceOf(user)).toBe(3_000_000);
    expect(await knex('top_ups').where({ userId: user.id, automatic: true }).orderBy('id').pluck('status')).toEqual(['succeeded', 'succeeded', 'failed']);
  });

  it('refuses auto-recharge settings out of range', async () => {
    const user = await createTestUser(platform.database.knex);
    const refused = await platform.request('PUT', '/user/balance/auto-recharge', { token: user.token, body: { enabled: 'yes', threshold: -1, amount: 2000 } });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors).sort()).toEqual(['amount', 'enabled', 'threshold']);
  });
});
