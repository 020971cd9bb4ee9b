import type { Knex } from 'knex';
import type { PaymentEvent } from '../providers/payments/types.ts';
import { creditTopUp, failTopUp, TOP_UP_PURPOSE } from './top-ups.ts';

/** The metadata purpose of a phone number subscription's charges (set by whoever charges them). */
export const SUBSCRIPTION_PURPOSE = 'phone_number_subscription';

/**
 * Told of every payment event of a phone number subscription (the integrator signals its workflow). It runs
 * inside the transaction that marks the event handled: database work goes through `trx` (on PGlite the one
 * connection is held by it), and throwing leaves the event unmarked so Stripe's redelivery tries again.
 */
export type SubscriptionPaymentHandler = (event: PaymentEvent, trx: Knex.Transaction) => Promise<void>;

export type EventHandling = 'handled' | 'duplicate' | 'ignored';

/**
 * Acts on a verified payment event once: its id is stored in the same transaction as its effect, so a
 * replayed or redelivered event does nothing, and an event whose handling failed is not marked (the provider
 * delivers it again). Top-ups are found by the payment's metadata; a subscription's events go to `onSubscription`.
 */
export async function handlePaymentEvent(
  deps: { knex: Knex; onSubscriptionPayment: SubscriptionPaymentHandler },
  event: PaymentEvent,
): Promise<EventHandling> {
  const payment = event.payment;
  if (!payment || !['payment_intent.succeeded', 'payment_intent.payment_failed'].includes(event.type)) return 'ignored';
  const purpose = payment.metadata.parley_purpose;
  if (purpose !== TOP_UP_PURPOSE && purpose !== SUBSCRIPTION_PURPOSE) return 'ignored';
  return deps.knex.transaction(async (trx) => {
    const fresh = await trx('payment_webhook_events')
      .insert({ eventId: event.id, type: event.type })
      .onConflict('event_id')
      .ignore()
      .returning('event_id');
    if (fresh.length === 0) return 'duplicate';
    if (purpose === SUBSCRIPTION_PURPOSE) {
      await deps.onSubscriptionPayment(event, trx);
      return 'handled';
    }
    const topUpId = Number(payment.metadata.parley_top_up_id);
    if (!Number.isSafeInteger(topUpId)) return 'ignored';
    if (event.type === 'payment_intent.succeeded') {
      await creditTopUp(trx, topUpId, payment.id);
    } else {
      const reason = payment.failureReason ?? 'card_declined';
      await failTopUp(trx, topUpId, { paymentId: payment.id, reason, message: reason });
    }
    return 'handled';
  });
}
