import type { Knex } from 'knex';
import { ConflictError, PaymentRequiredError } from '../lib/errors.ts';
import type { ChargeOutcome, Payment } from '../providers/payments/types.ts';
import { recordEntry } from './ledger.ts';
import { customerFor, defaultPaymentMethodId, type PaymentDeps } from './payment-customers.ts';

export type TopUpStatus = 'pending' | 'processing' | 'requires_action' | 'succeeded' | 'failed';

export interface TopUp {
  id: number;
  userId: number;
  amountMicros: number;
  status: TopUpStatus;
  paymentId: string | null;
  failureReason: string | null;
  failureMessage: string | null;
  automatic: boolean;
  createdAt: Date;
  /** While the card waits for its holder to authenticate (`requires_action`): what Stripe.js confirms the payment with. Never stored. */
  clientSecret?: string;
}

/** The metadata that ties a provider's payment (and its webhook events) back to the top-up it pays for. */
export const TOP_UP_PURPOSE = 'top_up';

const NO_CARD = 'No payment method on file. Add a card with POST /api/user/payment-methods first.';

async function readTopUp(knex: Knex, id: number): Promise<TopUp> {
  const row = await knex('top_ups').where({ id }).first<TopUp>();
  return { ...row, amountMicros: Number(row.amountMicros) };
}

/**
 * Credits a top-up's amount to the ledger once, whichever comes first of the charge's answer and its
 * `payment_intent.succeeded` event: the ledger entry's key is the top-up's. A top-up recorded as failed that
 * the provider later confirms is credited too, since the money was taken.
 */
export async function creditTopUp(knex: Knex, topUpId: number, paymentId: string): Promise<void> {
  await knex.transaction(async (trx) => {
    const topUp = await trx('top_ups').where({ id: topUpId }).forUpdate().first<{ userId: number; amountMicros: number | string; automatic: boolean } | undefined>();
    if (!topUp) return;
    await recordEntry(trx, {
      userId: topUp.userId,
      amountMicros: Number(topUp.amountMicros),
      kind: 'top_up',
      reference: `top-up:${topUpId}`,
      description: topUp.automatic ? 'Auto-recharge' : 'Balance top-up',
      idempotencyKey: `top-up:${topUpId}`,
    });
    await trx('top_ups').where({ id: topUpId }).update({ status: 'succeeded', paymentId, failureReason: null, failureMessage: null, updatedAt: trx.fn.now() });
  });
}

/** Records a failed payment, unless the top-up has already succeeded (a late failure never takes back a credit). */
export async function failTopUp(knex: Knex, topUpId: number, failure: { paymentId: string | null; reason: string; message: string }): Promise<void> {
  await knex('top_ups')
    .where({ id: topUpId })
    .whereIn('status', ['pending', 'processing', 'requires_action'])
    .update({ status: 'failed', paymentId: failure.paymentId, failureReason: failure.reason, failureMessage: failure.message, updatedAt: knex.fn.now() });
}

/** Applies what the provider answered to a charge. */
async function settle(knex: Knex, topUpId: number, outcome: ChargeOutcome): Promise<void> {
  if (outcome.status === 'succeeded') return creditTopUp(knex, topUpId, outcome.paymentId);
  if (outcome.status === 'failed') return failTopUp(knex, topUpId, outcome);
  // Only a top-up still waiting moves on: its webhook event may already have settled it.
  await knex('top_ups')
    .where({ id: topUpId })
    .whereIn('status', ['pending', 'requires_action'])
    .update({ status: outcome.status, paymentId: outcome.paymentId, updatedAt: knex.fn.now() });
}

/** A payment as it stands at the provider, as the answer to a charge. */
function outcomeOfPayment(payment: Payment): ChargeOutcome {
  if (payment.status === 'succeeded' || payment.status === 'processing') return { status: payment.status, paymentId: payment.id };
  if (payment.status === 'requires_action' && payment.clientSecret) return { status: 'requires_action', paymentId: payment.id, clientSecret: payment.clientSecret };
  const reason = payment.failureReason ?? 'card_declined';
  return { status: 'failed', paymentId: payment.id, reason, message: reason };
}

/**
 * Charges the user's default card and credits the balance. `idempotencyKey` names the top-up: a retried
 * request with the same key (the `Idempotency-Key` header) answers the first top-up and never charges twice;
 * one still pending (its request died mid-charge) is charged again with the same provider key, which the
 * provider answers with the first charge's outcome. A top-up the user asks for is charged on-session: a card
 * that asks for 3-D Secure leaves it `requires_action`, with the client secret to confirm it with (asked
 * again, the payment is read afresh: it may have been authenticated since). An automatic one is off-session.
 * Throws `PaymentRequiredError` when there is no card or the payment failed.
 */
export async function topUp(
  deps: PaymentDeps,
  input: { userId: number; amountMicros: number; idempotencyKey: string; automatic: boolean },
): Promise<TopUp> {
  const { knex, payments } = deps;
  const paymentMethodId = await defaultPaymentMethodId(deps, input.userId);
  if (!paymentMethodId) throw new PaymentRequiredError(NO_CARD);
  const inserted = await knex('top_ups')
    .insert({ userId: input.userId, amountMicros: input.amountMicros, idempotencyKey: input.idempotencyKey, automatic: input.automatic })
    .onConflict(['user_id', 'idempotency_key'])
    .ignore()
    .returning<{ id: number }[]>('id');
  let id = inserted[0]?.id;
  if (id === undefined) {
    const existing = await knex('top_ups').where({ userId: input.userId, idempotencyKey: input.idempotencyKey }).first<TopUp>();
    if (Number(existing.amountMicros) !== input.amountMicros) throw new ConflictError('This Idempotency-Key was already used for a top-up of another amount.');
    id = existing.id;
  }
  let current = await readTopUp(knex, id);
  let outcome: ChargeOutcome | undefined;
  if (current.status === 'pending') {
    outcome = await payments.charge({
      customerId: await customerFor(deps, input.userId),
      paymentMethodId,
      amountMicros: input.amountMicros,
      description: input.automatic ? 'Parley auto-recharge' : 'Parley balance top-up',
      idempotencyKey: `parley-top-up-${id}`,
      offSession: input.automatic,
      metadata: { parley_purpose: TOP_UP_PURPOSE, parley_top_up_id: String(id), parley_user_id: String(input.userId) },
    });
  } else if (current.status === 'requires_action' && current.paymentId) {
    outcome = outcomeOfPayment(await payments.retrievePayment(current.paymentId));
  }
  if (outcome) {
    await settle(knex, id, outcome);
    current = await readTopUp(knex, id);
    if (current.status === 'requires_action' && outcome.status === 'requires_action') return { ...current, clientSecret: outcome.clientSecret };
  }
  if (current.status === 'failed') throw new PaymentRequiredError(`The payment failed: ${current.failureMessage ?? current.failureReason ?? 'declined'} (${current.failureReason ?? 'card_declined'})`);
  return current;
}
