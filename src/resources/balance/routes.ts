import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { readAutoRecharge, saveAutoRecharge } from '../../billing/auto-recharge.ts';
import type { PaymentDeps } from '../../billing/payment-customers.ts';
import { lengthAwarePage } from '../../lib/pagination.ts';
import { usdToMicros } from '../../lib/money.ts';
import { AutoRechargeAnswer, AutoRechargeBody, TopUpAnswer, TopUpAuthenticationAnswer, TopUpBody, TransactionListQuery, TransactionPage } from './schemas.ts';
import { autoRechargeItem, topUpItem, transactionItem } from './serialize.ts';
import { listTransactions, topUpBalance } from './service.ts';

const TAG = 'Balance';

export function balanceRoutes(deps: PaymentDeps & { publicUrl: string }): RouteDefinition[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/user/balance/top-up',
      tag: TAG,
      summary: 'Charge the default card and credit the balance (send an Idempotency-Key header to retry safely)',
      description: 'A payment the provider confirms later answers 202 `processing`; the balance is credited when its webhook event arrives. '
        + 'A card that asks for 3-D Secure answers 402 `requires_action` with the PaymentIntent\'s `client_secret`: the client confirms it '
        + 'with Stripe.js, and the balance is credited when its webhook event arrives (retry with the same Idempotency-Key to read it again).',
      auth: 'bearer',
      body: TopUpBody,
      errors: ['payment_required', 'conflict'],
      responses: {
        200: { description: 'Credited', schema: TopUpAnswer },
        202: { description: 'The payment is processing', schema: TopUpAnswer },
        402: { description: 'The card needs its holder to authenticate the payment (3-D Secure)', schema: TopUpAuthenticationAnswer },
      },
      async handle({ auth, body, ctx }) {
        const key = ctx.get('idempotency-key') || undefined;
        const { topUp, balanceMicros } = await topUpBalance(deps, { userId: auth.user.id, amountUsd: body.amount, idempotencyKey: key });
        if (topUp.status === 'requires_action' && topUp.clientSecret) {
          const message = 'Your card requires authentication. Confirm the payment with Stripe.js using data.client_secret; the balance is credited when it succeeds.';
          return { status: 402, body: { message, data: { ...topUpItem(topUp, balanceMicros), client_secret: topUp.clientSecret } } };
        }
        if (topUp.status === 'processing') {
          return { status: 202, body: { message: 'The payment is processing; the balance is credited when it succeeds.', data: topUpItem(topUp, balanceMicros) } };
        }
        return { body: { message: 'Balance topped up successfully.', data: topUpItem(topUp, balanceMicros) } };
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/user/balance/auto-recharge',
      tag: TAG,
      summary: 'Recharge the balance from the default card when a charge leaves it below a threshold (once per crossing)',
      auth: 'bearer',
      body: AutoRechargeBody,
      responses: { 200: { description: 'Saved', schema: AutoRechargeAnswer } },
      async handle({ auth, body }) {
        const settings = { enabled: body.enabled, thresholdMicros: usdToMicros(body.threshold), amountMicros: usdToMicros(body.amount) };
        await saveAutoRecharge(deps, auth.user.id, settings);
        return { body: { message: 'Auto-recharge settings saved.', data: autoRechargeItem(settings) } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/user/balance/auto-recharge',
      tag: TAG,
      summary: "The caller's auto-recharge settings (disabled until saved)",
      auth: 'bearer',
      responses: { 200: { description: 'The settings', schema: AutoRechargeAnswer } },
      async handle({ auth }) {
        const settings = await readAutoRecharge(deps, auth.user.id) ?? { enabled: false, thresholdMicros: 0, amountMicros: 0 };
        return { body: { message: 'Auto-recharge settings.', data: autoRechargeItem(settings) } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/user/balance/transactions',
      tag: TAG,
      summary: "The caller's ledger, newest first, paginated",
      auth: 'bearer',
      query: TransactionListQuery,
      responses: { 200: { description: 'A page of ledger entries', schema: TransactionPage } },
      async handle({ auth, query, ctx }) {
        const page = { page: query.page ?? 1, perPage: query.per_page ?? 15 };
        const { entries, total } = await listTransactions(deps, auth.user.id, page);
        return {
          body: lengthAwarePage({ data: entries.map(transactionItem), total, page, path: `${deps.publicUrl}/api/user/balance/transactions`, query: ctx.query }),
        };
      },
    }),
  ];
}
