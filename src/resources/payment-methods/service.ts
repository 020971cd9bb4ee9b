import { isUniqueViolation } from '../../db/errors.ts';
import { customerFor, type PaymentDeps } from '../../billing/payment-customers.ts';
import { NotFoundError, ValidationError } from '../../lib/errors.ts';
import { PaymentMethodRejectedError } from '../../providers/payments/types.ts';

export interface StoredPaymentMethod {
  id: number;
  paymentMethodId: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  isDefault: boolean;
}

const COLUMNS = ['id', 'paymentMethodId', 'brand', 'last4', 'expMonth', 'expYear', 'isDefault'];
const NOT_FOUND = 'Payment method not found.';

export async function listPaymentMethods(deps: PaymentDeps, userId: number): Promise<StoredPaymentMethod[]> {
  return deps.knex('payment_methods').where({ userId, provider: deps.payments.name }).orderBy('id').select<StoredPaymentMethod[]>(COLUMNS);
}

async function findPaymentMethod(deps: PaymentDeps, userId: number, paymentMethodId: string): Promise<StoredPaymentMethod> {
  const row = await deps.knex('payment_methods')
    .where({ userId, provider: deps.payments.name, paymentMethodId })
    .first<StoredPaymentMethod | undefined>(COLUMNS);
  if (!row) throw new NotFoundError(NOT_FOUND);
  return row;
}

/**
 * Makes the card the one charged by default, here and at the provider. Clearing the old default and setting the
 * new one is one transaction, so the user never has two or (while they had one) none.
 */
async function makeDefault(deps: PaymentDeps, userId: number, method: StoredPaymentMethod): Promise<void> {
  await deps.knex.transaction(async (trx) => {
    await trx('payment_methods').where({ userId, isDefault: true }).whereNot({ id: method.id }).update({ isDefault: false });
    await trx('payment_methods').where({ id: method.id }).update({ isDefault: true });
  });
  await deps.payments.setDefaultPaymentMethod(await customerFor(deps, userId), method.paymentMethodId);
}

/**
 * Attaches a PaymentMethod to the user's customer and keeps the card's description. The first card becomes
 * the default. A PaymentMethod the provider refuses (unknown, malformed, another customer's) is a 422 on the
 * field, as Laravel answers an invalid selection.
 */
export async function addPaymentMethod(deps: PaymentDeps, userId: number, paymentMethodId: string): Promise<StoredPaymentMethod> {
  const customerId = await customerFor(deps, userId);
  let card;
  try {
    card = await deps.payments.attachPaymentMethod(customerId, paymentMethodId);
  } catch (error) {
    if (error instanceof PaymentMethodRejectedError) throw ValidationError.of('payment_method', `The selected payment method is invalid: ${error.message}`);
    throw error;
  }
  const [inserted] = await deps.knex('payment_methods')
    .insert({ userId, provider: deps.payments.name, paymentMethodId: card.id, brand: card.brand, last4: card.last4, expMonth: card.expMonth, expYear: card.expYear })
    .returning<StoredPaymentMethod[]>(COLUMNS);
  const method = inserted as StoredPaymentMethod;
  const hasDefault = await deps.knex('payment_methods').where({ userId, isDefault: true }).first<{ id: number } | undefined>('id');
  if (!hasDefault) {
    try {
      await deps.knex('payment_methods').where({ id: method.id }).update({ isDefault: true });
      await deps.payments.setDefaultPaymentMethod(customerId, card.id);
      method.isDefault = true;
    } catch (error) {
      // Another first card was added at the same moment and became the default.
      if (!isUniqueViolation(error)) throw error;
    }
  }
  return method;
}

export async function setDefaultPaymentMethod(deps: PaymentDeps, userId: number, paymentMethodId: string): Promise<StoredPaymentMethod> {
  const method = await findPaymentMethod(deps, userId, paymentMethodId);
  await makeDefault(deps, userId, method);
  return { ...method, isDefault: true };
}

/**
 * Detaches the card at the provider and forgets it. When it was the default, the newest remaining card takes
 * its place, so renewals and auto-recharge keep a card to charge.
 */
export async function deletePaymentMethod(deps: PaymentDeps, userId: number, paymentMethodId: string): Promise<void> {
  const method = await findPaymentMethod(deps, userId, paymentMethodId);
  await deps.payments.detachPaymentMethod(method.paymentMethodId);
  await deps.knex('payment_methods').where({ id: method.id }).delete();
  if (!method.isDefault) return;
  const next = await deps.knex('payment_methods')
    .where({ userId, provider: deps.payments.name })
    .orderBy('id', 'desc')
    .first<StoredPaymentMethod | undefined>(COLUMNS);
  if (next) await makeDefault(deps, userId, next);
}
