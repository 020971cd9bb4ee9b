import { randomUUID } from 'node:crypto';
import { stripeSignatureOf } from '../../src/api/middleware/signatures.ts';
import type { ChargeInput, ChargeOutcome, PaymentProvider } from '../../src/providers/payments/types.ts';

/** The webhook signing secret the payment tests configure (STRIPE_WEBHOOK_SECRET). */
export const TEST_WEBHOOK_SECRET = `whsec_test_${randomUUID().replaceAll('-', '')}`;

/** A `Stripe-Signature` header for `body`, as Stripe signs it, at `timestamp` (seconds; now unless given). */
export function stripeSignatureHeader(body: string, secret = TEST_WEBHOOK_SECRET, timestamp = Math.floor(Date.now() / 1000)): string {
  return `t=${timestamp},v1=${stripeSignatureOf(secret, timestamp, Buffer.from(body))}`;
}

/** A `payment_intent.*` event as Stripe posts it, with a fresh event id unless one is given. */
export function paymentIntentEvent(options: {
  type: 'payment_intent.succeeded' | 'payment_intent.payment_failed';
  paymentId: string;
  amountCents: number;
  metadata: Record<string, string>;
  eventId?: string;
  declineCode?: string;
}): string {
  const succeeded = options.type === 'payment_intent.succeeded';
  return JSON.stringify({
    id: options.eventId ?? `evt_${randomUUID().replaceAll('-', '')}`,
    object: 'event',
    api_version: '2025-01-27.acacia',
    created: Math.floor(Date.now() / 1000),
    type: options.type,
    livemode: false,
    data: {
      object: {
        id: options.paymentId,
        object: 'payment_intent',
        amount: options.amountCents,
        currency: 'usd',
        status: succeeded ? 'succeeded' : 'requires_payment_method',
        metadata: options.metadata,
        last_payment_error: succeeded ? null : { code: 'card_declined', decline_code: options.declineCode ?? 'generic_decline', message: 'Your card was declined.' },
      },
    },
  });
}

/**
 * A provider whose successful charges answer `processing` (confirmed later by webhook, like a bank debit) for
 * the users marked so; a gate lets a test deliver the webhook while the charge is still in flight.
 */
export function delayedConfirmation(provider: PaymentProvider) {
  const delayed = new Map<string, { gate?: Promise<void>; charged?: (input: ChargeInput, paymentId: string) => void }>();
  const wrapped: PaymentProvider = {
    ...provider,
    async charge(input): Promise<ChargeOutcome> {
      const outcome = await provider.charge(input);
      const rule = delayed.get(input.metadata.parley_user_id ?? '');
      if (!rule || outcome.status !== 'succeeded') return outcome;
      rule.charged?.(input, outcome.paymentId);
      await rule.gate;
      return { status: 'processing', paymentId: outcome.paymentId };
    },
  };
  return { provider: wrapped, delay: (userId: number, rule: { gate?: Promise<void>; charged?: (input: ChargeInput, paymentId: string) => void } = {}) => delayed.set(String(userId), rule) };
}
