import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChargeOutcome } from '../../src/providers/payments/types.ts';
import { paymentIntentEvent } from '../support/payments.ts';
import type { TestPlatform } from '../support/platform.ts';
import { sandboxPayments } from '../support/sandbox-payments.ts';
import { createTestUser } from '../support/users.ts';

// Cards, top-ups (with 3-D Secure) and the ledger they credit. What webhook events and auto-recharge do is in
// payments-sandbox-events.test.ts.

describe('payment methods and top-ups on the sandbox provider', () => {
  let platform: TestPlatform;
  const { sandbox, startPlatform, addCard, topUp, postEvent, balanceOf, topUpEntries } = sandboxPayments(() => platform);

  beforeAll(async () => {
    platform = await startPlatform();
  });
  afterAll(() => platform.close());

  it('attaches cards as Stripe test mode does, each attachment a card of its own, the first the default', async () => {
    const user = await createTestUser(platform.database.knex);
    const visa = await addCard(user, 'pm_card_visa');
    expect(visa.status).toBe(201);
    const year = new Date().getUTCFullYear();
    expect(visa.body).toEqual({
      message: 'Payment method added successfully.',
      data: { id: expect.stringMatching(/^pm_sbx[0-9a-f]{24}$/), brand: 'visa', last4: '4242', exp_month: expect.any(Number), exp_year: year + 3, is_default: true },
    });
    const mastercard = await addCard(user, 'pm_card_mastercard');
    expect(mastercard.status).toBe(201);
    expect(mastercard.body.data).toMatchObject({ brand: 'mastercard', last4: '4444', is_default: false });
    const again = await addCard(user, 'pm_card_visa');
    expect(again.body.data.id).not.toBe(visa.body.data.id);

    const list = await platform.request('GET', '/user/payment-methods', { token: user.token });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([visa.body.data, mastercard.body.data, again.body.data]);
    const other = await createTestUser(platform.database.knex);
    expect((await platform.request('GET', '/user/payment-methods', { token: other.token })).body).toEqual({ data: [] });
  });

  it("answers a SetupIntent's client_secret", async () => {
    const user = await createTestUser(platform.database.knex);
    const answer = await platform.request('POST', '/user/payment-methods/setup-intent', { token: user.token });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: { client_secret: expect.stringMatching(/^seti_sbx[0-9a-f]+_secret_[0-9a-f]+$/) } });
  });

  it('refuses unknown and malformed PaymentMethod ids with a 422 on the field', async () => {
    const user = await createTestUser(platform.database.knex);
    const unknown = await addCard(user, 'pm_card_doesNotExist');
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors.payment_method[0]).toMatch(/^The selected payment method is invalid: No such PaymentMethod: 'pm_card_doesNotExist'/);
    expect(unknown.body.message).toBe(unknown.body.errors.payment_method[0]);
    const malformed = await addCard(user, '4242424242424242');
    expect(malformed.status).toBe(422);
    expect(malformed.body.errors.payment_method).toEqual(['The payment method field must be a Stripe PaymentMethod id (pm_...).']);
    const missing = await platform.request('POST', '/user/payment-methods', { token: user.token, body: {} });
    expect(missing.body).toEqual({ message: 'The payment method field is required.', errors: { payment_method: ['The payment method field is required.'] } });
    expect((await platform.request('GET', '/user/payment-methods', { token: user.token })).body.data).toEqual([]);
    expect((await platform.request('GET', '/user/payment-methods')).status).toBe(401);
  });

  it('changes the default, and a removed default hands over to the newest remaining card', async () => {
    const user = await createTestUser(platform.database.knex);
    const first = (await addCard(user, 'pm_card_visa')).body.data;
    const second = (await addCard(user, 'pm_card_mastercard')).body.data;
    const third = (await addCard(user, 'pm_card_amex')).body.data;
    const made = await platform.request('POST', `/user/payment-methods/${second.id}/default`, { token: user.token });
    expect(made.status).toBe(200);
    expect(made.body).toEqual({ message: 'Default payment method updated successfully.', data: { ...second, is_default: true } });
    const defaults = async () => (await platform.request('GET', '/user/payment-methods', { token: user.token })).body.data
      .filter((card: { is_default: boolean }) => card.is_default).map((card: { id: string }) => card.id);
    expect(await defaults()).toEqual([second.id]);

    const removed = await platform.request('DELETE', `/user/payment-methods/${second.id}`, { token: user.token });
    expect(removed.body).toEqual({ message: 'Payment method removed successfully.' });
    expect(await defaults()).toEqual([third.id]);
    expect((await platform.request('DELETE', `/user/payment-methods/${first.id}`, { token: user.token })).status).toBe(200);
    expect(await defaults()).toEqual([third.id]);

    const stranger = await createTestUser(platform.database.knex);
    expect((await platform.request('DELETE', `/user/payment-methods/${third.id}`, { token: stranger.token })).body).toEqual({ message: 'Payment method not found.' });
    expect((await platform.request('POST', `/user/payment-methods/${third.id}/default`, { token: stranger.token })).status).toBe(404);
    expect((await platform.request('DELETE', `/user/payment-methods/${second.id}`, { token: user.token })).status).toBe(404);
  });

  it('tops up from the default card and credits the ledger once per Idempotency-Key', async () => {
    const user = await createTestUser(platform.database.knex);
    await addCard(user, 'pm_card_visa');
    const first = await topUp(user, 20, 'retry-me');
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      message: 'Balance topped up successfully.',
      data: { id: expect.any(Number), amount: 20, status: 'succeeded', payment_id: expect.stringMatching(/^pi_sbx/), balance: 20, created_at: expect.stringMatching(/Z$/) },
    });
    const retried = await topUp(user, 20, 'retry-me');
    expect(retried.body.data).toEqual(first.body.data);
    expect(await balanceOf(user)).toBe(20_000_000);
    expect(await platform.database.knex('sandbox_payments').where({ paymentMethodId: (await platform.database.knex('payment_methods').where({ userId: user.id }).first()).paymentMethodId })).toHaveLength(1);
    expect((await topUp(user, 25, 'retry-me')).status).toBe(409);
    const fresh = await topUp(user, 7.5);
    expect(fresh.body.data.balance).toBe(27.5);
    expect(await topUpEntries(user)).toEqual([{ amountMicros: 20_000_000 }, { amountMicros: 7_500_000 }]);
  });

  it('refuses amounts outside 5 to 1000 USD and whole cents', async () => {
    const user = await createTestUser(platform.database.knex);
    await addCard(user, 'pm_card_visa');
    for (const amount of [4.99, 1000.01, 10.001, '20']) {
      const refused = await topUp(user, amount);
      expect(refused.status, String(amount)).toBe(422);
      expect(Object.keys(refused.body.errors), String(amount)).toEqual(['amount']);
    }
    expect(await balanceOf(user)).toBe(0);
  });

  it('answers 402 without a card, and 402 with the reason when the card is declined, crediting nothing', async () => {
    const user = await createTestUser(platform.database.knex);
    expect(await topUp(user, 20)).toMatchObject({ status: 402, body: { message: 'No payment method on file. Add a card with POST /api/user/payment-methods first.' } });
    const cases = [
      ['pm_card_chargeDeclined', 'The payment failed: Your card was declined. (card_declined)'],
      ['pm_card_chargeDeclinedInsufficientFunds', 'The payment failed: Your card has insufficient funds. (insufficient_funds)'],
    ];
    for (const [card, message] of cases) {
      const added = await addCard(user, card!);
      expect(added.status, card).toBe(201);
      await platform.request('POST', `/user/payment-methods/${added.body.data.id}/default`, { token: user.token });
      expect(await topUp(user, 20), card).toMatchObject({ status: 402, body: { message } });
    }
    expect(await balanceOf(user)).toBe(0);
    expect(await topUpEntries(user)).toEqual([]);
  });

  it('asks for 3-D Secure on a top-up the user makes: 402 with the client secret, credited once when the webhook says it succeeded', async () => {
    const user = await createTestUser(platform.database.knex);
    await addCard(user, 'pm_card_authenticationRequired');
    const asked = await topUp(user, 20, 'authenticate-me');
    expect(asked.status).toBe(402);
    expect(asked.body).toEqual({
      message: 'Your card requires authentication. Confirm the payment with Stripe.js using data.client_secret; the balance is credited when it succeeds.',
      data: { id: expect.any(Number), amount: 20, status: 'requires_action', payment_id: expect.stringMatching(/^pi_sbx/), client_secret: expect.stringMatching(/^pi_sbx[0-9a-f]+_secret_[0-9a-f]+$/), balance: 0, created_at: expect.stringMatching(/Z$/) },
    });
    expect(asked.body.data.client_secret.startsWith(`${asked.body.data.payment_id}_secret_`)).toBe(true);
    // Asked again, the same top-up waits, with the same secret: one payment only.
    expect((await topUp(user, 20, 'authenticate-me')).body).toEqual(asked.body);
    expect(await platform.database.knex('sandbox_payments').where({ id: asked.body.data.payment_id }).pluck('status')).toEqual(['requires_action']);
    expect(await platform.database.knex('sandbox_payments').whereRaw("metadata->>'parley_top_up_id' = ?", [String(asked.body.data.id)])).toHaveLength(1);

    const event = paymentIntentEvent({
      type: 'payment_intent.succeeded',
      paymentId: asked.body.data.payment_id,
      amountCents: 2000,
      metadata: { parley_purpose: 'top_up', parley_top_up_id: String(asked.body.data.id), parley_user_id: String(user.id) },
    });
    expect((await postEvent(event)).status).toBe(200);
    expect((await postEvent(event)).status).toBe(200);
    expect(await balanceOf(user)).toBe(20_000_000);
    expect(await topUp(user, 20, 'authenticate-me')).toMatchObject({ status: 200, body: { data: { status: 'succeeded', balance: 20 } } });
    expect(await topUpEntries(user)).toEqual([{ amountMicros: 20_000_000 }]);
  });

  it('charges a card that asks for 3-D Secure as Stripe test mode does: waiting on-session, failed off-session', async () => {
    const customerId = await sandbox.createCustomer({ userId: 0, email: 'three-d-secure@example.test', name: 'Ada' });
    const card = await sandbox.attachPaymentMethod(customerId, 'pm_card_authenticationRequired');
    expect(card).toMatchObject({ brand: 'visa', last4: '3184' });
    const charge = (offSession: boolean) => sandbox.charge({
      customerId, paymentMethodId: card.id, amountMicros: 5_000_000, description: 'test', idempotencyKey: `3ds-${offSession}-${card.id}`, offSession, metadata: {},
    });
    const waiting = await charge(false);
    expect(waiting).toEqual({ status: 'requires_action', paymentId: expect.stringMatching(/^pi_sbx/), clientSecret: expect.stringMatching(/_secret_/) });
    const { paymentId, clientSecret } = waiting as Extract<ChargeOutcome, { status: 'requires_action' }>;
    expect(await sandbox.retrievePayment(paymentId)).toMatchObject({ status: 'requires_action', clientSecret });
    expect(await charge(true)).toEqual({
      status: 'failed', paymentId: expect.stringMatching(/^pi_sbx/), reason: 'authentication_required', message: 'Your card was declined. This transaction requires authentication.',
    });
  });

  it('lists the ledger newest first, paginated like the other lists', async () => {
    const user = await createTestUser(platform.database.knex, { balanceUsd: 1 });
    await addCard(user, 'pm_card_visa');
    await topUp(user, 5);
    await topUp(user, 6);
    const page = await platform.request('GET', '/user/balance/transactions?per_page=2&page=2', { token: user.token });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ current_page: 2, per_page: 2, total: 3, last_page: 2, from: 3, to: 3, next_page_url: null });
    expect(page.body.prev_page_url).toBe(`${platform.config.publicUrl}/api/user/balance/transactions?per_page=2&page=1`);
    expect(page.body.data).toEqual([{ id: expect.any(Number), amount: 1, type: 'adjustment', description: 'Starting credit', reference: `user:${user.id}`, created_at: expect.stringMatching(/Z$/) }]);
    const first = await platform.request('GET', '/user/balance/transactions', { token: user.token });
    expect(first.body.data.map((entry: { amount: number; type: string }) => [entry.type, entry.amount])).toEqual([['top_up', 6], ['top_up', 5], ['adjustment', 1]]);
  });
});
