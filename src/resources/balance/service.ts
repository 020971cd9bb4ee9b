import { randomUUID } from 'node:crypto';
import { BalanceTransaction } from '../../billing/balance-transaction.ts';
import { balanceMicros } from '../../billing/ledger.ts';
import type { PaymentDeps } from '../../billing/payment-customers.ts';
import { topUp, type TopUp } from '../../billing/top-ups.ts';
import { pageWindow, type PageRequest } from '../../lib/pagination.ts';
import { usdToMicros } from '../../lib/money.ts';

/**
 * Charges the default card for `amountUsd` and credits the balance. The request's `Idempotency-Key` (scoped to
 * the user) makes a retried request answer the first top-up; without one every request is a new top-up.
 */
export async function topUpBalance(
  deps: PaymentDeps,
  input: { userId: number; amountUsd: number; idempotencyKey: string | undefined },
): Promise<{ topUp: TopUp; balanceMicros: number }> {
  const done = await topUp(deps, {
    userId: input.userId,
    amountMicros: usdToMicros(input.amountUsd),
    idempotencyKey: input.idempotencyKey ? `request:${input.idempotencyKey}` : `request:${randomUUID()}`,
    automatic: false,
  });
  return { topUp: done, balanceMicros: await balanceMicros(deps.knex, input.userId) };
}

/** The user's ledger, newest first. */
export async function listTransactions(deps: Pick<PaymentDeps, 'knex'>, userId: number, page: PageRequest): Promise<{ entries: BalanceTransaction[]; total: number }> {
  const { offset, limit } = pageWindow(page);
  const [entries, counted] = await Promise.all([
    BalanceTransaction.query(deps.knex).where({ userId }).orderBy('id', 'desc').offset(offset).limit(limit),
    deps.knex('balance_transactions').where({ userId }).count<{ count: string | number }[]>('* as count'),
  ]);
  return { entries, total: Number(counted[0]?.count ?? 0) };
}
