import { balanceMicros } from '../../src/billing/ledger.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { createSandboxPayments } from '../../src/providers/payments/sandbox.ts';
import { delayedConfirmation, stripeSignatureHeader, TEST_WEBHOOK_SECRET } from './payments.ts';
import { startTestPlatform, type TestPlatform } from './platform.ts';
import type { TestUser } from './users.ts';

/**
 * The sandbox payment provider on the platform `platform` gives once started (`startPlatform` starts one on it,
 * verifying webhooks with the test secret), its successful charges confirmed later by webhook for the users
 * `payments.delay` marks; and the requests and ledger reads the payment tests make.
 */
export function sandboxPayments(platform: () => TestPlatform) {
  const sandbox = createSandboxPayments({ knex: () => platform().database.knex, webhookSecret: TEST_WEBHOOK_SECRET, clock: systemClock });
  const payments = delayedConfirmation(sandbox);
  const startPlatform = () => startTestPlatform({ env: { STRIPE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET }, providers: { payments: payments.provider } });

  const addCard = (user: TestUser, paymentMethod: string) => platform().request('POST', '/user/payment-methods', { token: user.token, body: { payment_method: paymentMethod } });
  const topUp = (user: TestUser, amount: unknown, key?: string) => platform().request('POST', '/user/balance/top-up', {
    token: user.token,
    body: { amount },
    headers: key ? { 'idempotency-key': key } : {},
  });
  const postEvent = (body: string, signature = stripeSignatureHeader(body)) => platform().request('POST', '/billing/stripe/webhook', {
    body,
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
  });
  const balanceOf = (user: TestUser) => balanceMicros(platform().database.knex, user.id);
  const topUpEntries = async (user: TestUser) => platform().database.knex('balance_transactions').where({ userId: user.id, kind: 'top_up' }).select('amountMicros');

  return { sandbox, payments, startPlatform, addCard, topUp, postEvent, balanceOf, topUpEntries };
}
