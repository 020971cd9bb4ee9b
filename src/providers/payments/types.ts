/**
 * What Parley asks of a payment provider: one customer per user, cards attached by PaymentMethod id (card
 * numbers never reach Parley), and charges in integer micro-dollars that a retry with the same idempotency key
 * never repeats. Stripe and the sandbox both answer through this interface.
 */

/** A card as the provider describes it; `id` is the provider's PaymentMethod id (`pm_...`). */
export interface Card {
  id: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

/** Why a charge failed, in Stripe's words (`card_declined`, `insufficient_funds`, `authentication_required`, ...). */
export type FailureReason = 'card_declined' | 'insufficient_funds' | 'authentication_required' | 'expired_card' | 'processing_error' | (string & {});

export type ChargeOutcome =
  | { status: 'succeeded'; paymentId: string }
  /** Accepted, confirmed later: a `payment_intent.succeeded` or `payment_intent.payment_failed` event follows. */
  | { status: 'processing'; paymentId: string }
  /**
   * On-session only: the card asks its holder to authenticate (3-D Secure). The client confirms the payment
   * with Stripe.js and `clientSecret`; a `payment_intent.succeeded` or `payment_intent.payment_failed` event
   * follows. Off-session, with nobody there to authenticate, the same card fails with `authentication_required`.
   */
  | { status: 'requires_action'; paymentId: string; clientSecret: string }
  /** `paymentId` is null when the provider refused before creating a payment. */
  | { status: 'failed'; paymentId: string | null; reason: FailureReason; message: string };

export interface ChargeInput {
  customerId: string;
  paymentMethodId: string;
  amountMicros: number;
  description: string;
  /** A retried charge with the same key answers the first charge's outcome and charges nothing more. */
  idempotencyKey: string;
  /** True when the user is not there to authenticate (renewals, auto-recharge); false when the user asked for the charge. */
  offSession: boolean;
  /** Comes back on the payment and its webhook events; strings only, as Stripe keeps them. */
  metadata: Record<string, string>;
}

export interface Payment {
  id: string;
  status: 'succeeded' | 'processing' | 'failed' | 'requires_action';
  amountMicros: number;
  failureReason: FailureReason | null;
  metadata: Record<string, string>;
  /** For a payment waiting for its holder's authentication (`requires_action`): what the client confirms it with. */
  clientSecret?: string;
}

/** A verified webhook event, reduced to what Parley acts on. */
export interface PaymentEvent {
  id: string;
  type: string;
  /** For `payment_intent.*` events: the payment as the event carried it. */
  payment: Payment | undefined;
}

export interface PaymentProvider {
  readonly name: 'sandbox' | 'stripe';
  createCustomer(input: { userId: number; email: string; name: string }): Promise<string>;
  /** A SetupIntent for the customer; the client confirms it with Stripe.js and sends back its PaymentMethod id. */
  createSetupIntent(customerId: string): Promise<{ clientSecret: string }>;
  /** Attaches a PaymentMethod to the customer; refused with `PaymentMethodRejectedError`. */
  attachPaymentMethod(customerId: string, paymentMethodId: string): Promise<Card>;
  detachPaymentMethod(paymentMethodId: string): Promise<void>;
  /** The card charged when none is named (Stripe: the customer's invoice_settings.default_payment_method). */
  setDefaultPaymentMethod(customerId: string, paymentMethodId: string): Promise<void>;
  charge(input: ChargeInput): Promise<ChargeOutcome>;
  retrievePayment(paymentId: string): Promise<Payment>;
  /** The event of a webhook request when its `Stripe-Signature` verifies (and is recent), else undefined. */
  verifyWebhook(payload: Buffer, signatureHeader: string): PaymentEvent | undefined;
}

/** The provider refused a PaymentMethod id: unknown, malformed, or already another customer's. */
export class PaymentMethodRejectedError extends Error {
  override name = 'PaymentMethodRejectedError';
}
