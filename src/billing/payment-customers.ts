import type { Knex } from 'knex';
import type { PaymentProvider } from '../providers/payments/types.ts';

export interface PaymentDeps {
  knex: Knex;
  payments: PaymentProvider;
}

/**
 * The user's customer at the provider, created on first need and stored. Two first needs at once may both
 * ask the provider; the first stored id stands and both use it (Stripe's create is idempotent per user too).
 */
export async function customerFor(deps: PaymentDeps, userId: number): Promise<string> {
  const { knex, payments } = deps;
  const stored = await knex('payment_customers').where({ userId, provider: payments.name }).first<{ customerId: string } | undefined>('customerId');
  if (stored) return stored.customerId;
  const user = await knex('users').where({ id: userId }).first<{ email: string; name: string }>('email', 'name');
  const customerId = await payments.createCustomer({ userId, email: user.email, name: user.name });
  await knex('payment_customers').insert({ userId, provider: payments.name, customerId }).onConflict(['user_id', 'provider']).ignore();
  const standing = await knex('payment_customers').where({ userId, provider: payments.name }).first<{ customerId: string }>('customerId');
  return standing.customerId;
}

/** The card top-ups and renewals charge: the user's default one at this provider, if any. */
export async function defaultPaymentMethodId(deps: PaymentDeps, userId: number): Promise<string | undefined> {
  const row = await deps.knex('payment_methods')
    .where({ userId, provider: deps.payments.name, isDefault: true })
    .first<{ paymentMethodId: string } | undefined>('paymentMethodId');
  return row?.paymentMethodId;
}
