import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { Clock } from '../../lib/clock.ts';
import { testCards } from './sandbox-cards.ts';
import { verifyStripeEvent } from './stripe-events.ts';
import { PaymentMethodRejectedError, type Card, type ChargeOutcome, type Payment, type PaymentProvider } from './types.ts';

/** Ids shaped like Stripe's (`pm_...`), marked as the sandbox's so they are never mistaken for real ones. */
function sandboxId(prefix: string): string {
  return `${prefix}_sbx${randomBytes(12).toString('hex')}`;
}

interface PaymentRow {
  id: string;
  status: Payment['status'];
  amountMicros: number | string;
  failureReason: string | null;
  failureMessage: string | null;
  metadata: Record<string, string>;
  clientSecret: string | null;
}

function paymentOf(row: PaymentRow): Payment {
  const payment: Payment = { id: row.id, status: row.status, amountMicros: Number(row.amountMicros), failureReason: row.failureReason, metadata: row.metadata };
  if (row.status === 'requires_action' && row.clientSecret) payment.clientSecret = row.clientSecret;
  return payment;
}

function outcomeOf(row: PaymentRow): ChargeOutcome {
  if (row.status === 'succeeded' || row.status === 'processing') return { status: row.status, paymentId: row.id };
  if (row.status === 'requires_action' && row.clientSecret) return { status: 'requires_action', paymentId: row.id, clientSecret: row.clientSecret };
  return { status: 'failed', paymentId: row.id, reason: row.failureReason ?? 'card_declined', message: row.failureMessage ?? 'Your card was declined.' };
}

/**
 * The embedded payment provider: Stripe's test mode, simulated over the database (its state survives a
 * restart). It accepts Stripe's test PaymentMethod ids (sandbox-cards.ts), giving each attachment a card of its
 * own, and its webhook events are signed and verified exactly as Stripe's.
 */
export function createSandboxPayments(options: { knex: () => Knex; webhookSecret: string | undefined; clock: Clock }): PaymentProvider {
  const { knex, clock } = options;

  async function customerExists(customerId: string): Promise<void> {
    const found = await knex()('sandbox_customers').where({ id: customerId }).first<{ id: string } | undefined>('id');
    if (!found) throw new Error(`No such customer: '${customerId}'`);
  }

  return {
    name: 'sandbox',

    async createCustomer({ email }) {
      const id = sandboxId('cus');
      await knex()('sandbox_customers').insert({ id, email });
      return id;
    },

    async createSetupIntent(customerId) {
      await customerExists(customerId);
      return { clientSecret: `${sandboxId('seti')}_secret_${randomBytes(12).toString('hex')}` };
    },

    async attachPaymentMethod(customerId, paymentMethodId): Promise<Card> {
      await customerExists(customerId);
      const test = testCards[paymentMethodId];
      if (!test) {
        throw new PaymentMethodRejectedError(`No such PaymentMethod: '${paymentMethodId}'. The sandbox accepts Stripe's test PaymentMethods, such as pm_card_visa.`);
      }
      // Stripe's test cards expire a few years ahead; the month of attachment keeps them varied but valid.
      const now = clock();
      const card: Card = { id: sandboxId('pm'), brand: test.brand, last4: test.last4, expMonth: now.getUTCMonth() + 1, expYear: now.getUTCFullYear() + 3 };
      await knex()('sandbox_payment_methods').insert({ ...card, customerId, testMethod: paymentMethodId });
      return card;
    },

    async detachPaymentMethod(paymentMethodId) {
      await knex()('sandbox_payment_methods').where({ id: paymentMethodId }).update({ customerId: null });
      await knex()('sandbox_customers').where({ defaultPaymentMethodId: paymentMethodId }).update({ defaultPaymentMethodId: null });
    },

    async setDefaultPaymentMethod(customerId, paymentMethodId) {
      await knex()('sandbox_customers').where({ id: customerId }).update({ defaultPaymentMethodId: paymentMethodId });
    },

    async charge(input) {
      const db = knex();
      const existing = await db('sandbox_payments').where({ idempotencyKey: input.idempotencyKey }).first<PaymentRow | undefined>();
      if (existing) return outcomeOf(existing);
      const method = await db('sandbox_payment_methods')
        .where({ id: input.paymentMethodId, customerId: input.customerId })
        .first<{ testMethod: string } | undefined>('testMethod');
      if (!method) throw new Error(`No such PaymentMethod of customer '${input.customerId}': '${input.paymentMethodId}'`);
      const card = testCards[method.testMethod];
      // A charge the user makes waits for them to authenticate, as in Stripe's test mode. The sandbox has no
      // Stripe.js to do it with: a signed webhook event settles such a payment.
      const authenticating = card?.requiresAuthentication === true && !input.offSession;
      const decline = authenticating ? undefined : card?.decline;
      const id = sandboxId('pi');
      const written = await db('sandbox_payments')
        .insert({
          id,
          customerId: input.customerId,
          paymentMethodId: input.paymentMethodId,
          amountMicros: input.amountMicros,
          status: authenticating ? 'requires_action' : decline ? 'failed' : 'succeeded',
          failureReason: decline?.reason ?? null,
          failureMessage: decline?.message ?? null,
          clientSecret: authenticating ? `${id}_secret_${randomBytes(12).toString('hex')}` : null,
          description: input.description,
          metadata: JSON.stringify(input.metadata),
          idempotencyKey: input.idempotencyKey,
        })
        // Two tries of one key at once: the first write stands and both answer it.
        .onConflict('idempotency_key')
        .ignore()
        .returning<PaymentRow[]>('*');
      const row = written[0] ?? await db('sandbox_payments').where({ idempotencyKey: input.idempotencyKey }).first<PaymentRow>();
      return outcomeOf(row);
    },

    async retrievePayment(paymentId) {
      const row = await knex()('sandbox_payments').where({ id: paymentId }).first<PaymentRow | undefined>();
      if (!row) throw new Error(`No such payment: '${paymentId}'`);
      return paymentOf(row);
    },

    verifyWebhook: (payload, signatureHeader) => verifyStripeEvent(options.webhookSecret, payload, signatureHeader),
  };
}
