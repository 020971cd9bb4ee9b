import type Stripe from 'stripe';
import { isValidStripeSignature, STRIPE_SIGNATURE_TOLERANCE_SECONDS } from '../../lib/stripe-signature.ts';
import type { FailureReason, Payment, PaymentEvent } from './types.ts';

const MICROS_PER_CENT = 10_000;

/** Stripe charges USD in cents; Parley's amounts are micro-dollars and a charge must be a whole number of cents. */
export function microsToCents(micros: number): number {
  if (!Number.isInteger(micros) || micros <= 0 || micros % MICROS_PER_CENT !== 0) {
    throw new RangeError(`a charge must be a positive whole number of cents, got ${micros} micro-dollars`);
  }
  return micros / MICROS_PER_CENT;
}

export function centsToMicros(cents: number): number {
  return cents * MICROS_PER_CENT;
}

/**
 * The reason of a failed payment in Stripe's words: an issuer's `decline_code` says more than the generic
 * `card_declined` (`insufficient_funds`), and a card that needs 3-D Secure is `authentication_required`.
 */
export function failureReasonOf(error: { code?: string | null; decline_code?: string | null } | null | undefined): FailureReason {
  if (!error) return 'card_declined';
  if (error.decline_code === 'insufficient_funds' || error.decline_code === 'authentication_required') return error.decline_code;
  return error.code ?? error.decline_code ?? 'card_declined';
}

export function paymentOf(intent: Stripe.PaymentIntent): Payment {
  const status = intent.status === 'succeeded' ? 'succeeded'
    : intent.status === 'processing' ? 'processing'
      : intent.status === 'requires_action' ? 'requires_action'
        : 'failed';
  const payment: Payment = {
    id: intent.id,
    status,
    amountMicros: centsToMicros(intent.amount),
    failureReason: status === 'failed' ? failureReasonOf(intent.last_payment_error) : status === 'requires_action' ? 'authentication_required' : null,
    metadata: { ...intent.metadata },
  };
  if (status === 'requires_action' && intent.client_secret) payment.clientSecret = intent.client_secret;
  return payment;
}

/**
 * Verifies a webhook request as Stripe signs it (HMAC-SHA256 of `t.body` in `Stripe-Signature`, its timestamp
 * within five minutes of now, before or after: lib/stripe-signature.ts, the one verifier of Stripe's routes)
 * and reduces the event to what Parley acts on. The sandbox posts and accepts the same format.
 */
export function verifyStripeEvent(secret: string | undefined, payload: Buffer, signatureHeader: string, nowMs = Date.now()): PaymentEvent | undefined {
  if (!secret || !signatureHeader) return undefined;
  const verified = isValidStripeSignature({
    secret, header: signatureHeader, payload, toleranceSeconds: STRIPE_SIGNATURE_TOLERANCE_SECONDS, nowSeconds: Math.floor(nowMs / 1000),
  });
  if (!verified) return undefined;
  let event: Partial<Stripe.Event>;
  try {
    event = JSON.parse(payload.toString('utf8')) as Partial<Stripe.Event>;
  } catch {
    return undefined;
  }
  if (typeof event.id !== 'string' || typeof event.type !== 'string' || typeof event.data?.object !== 'object' || event.data.object === null) return undefined;
  const object = event.data.object as { object?: string };
  const payment = object.object === 'payment_intent' ? paymentOf(object as Stripe.PaymentIntent) : undefined;
  return { id: event.id, type: event.type, payment };
}
