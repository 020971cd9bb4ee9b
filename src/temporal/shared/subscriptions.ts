/** What a phone number's subscription workflow shares with its starters and activities. A leaf module. */

/** The signals a number's subscription workflow takes, by name. */
export const subscriptionSignals = {
  /** The owner released the number: it stays until the paid period ends. */
  releaseRequested: 'releaseRequested',
  /** The owner changed the default payment method: a past-due renewal is tried again now. */
  paymentMethodUpdated: 'paymentMethodUpdated',
  /** The provider's webhook settled a charge that was processing: `PaymentSettledSignal`. */
  paymentSettled: 'paymentSettled',
} as const;

export interface PaymentSettledSignal {
  /** The subscription period the charge pays for (its metadata says). */
  period: number;
}

/**
 * A number's subscription takes the number's id; the rest is read by its activities. `retryDelaysMs` are the
 * waits after a failed renewal (the starter takes them from the billing rules; tests shorten them).
 */
export interface PhoneNumberSubscriptionInput {
  phoneNumberId: number;
  /** Set by the purchase: provision the number and charge its first period before anything else. */
  purchase?: boolean;
  retryDelaysMs: number[];
  /** How long a processing charge may wait for its webhook before the provider is asked directly. */
  settleWaitMs?: number;
}

/** What `subscriptionQuery` answers. */
export interface SubscriptionProgress {
  status: 'active' | 'past_due' | 'released';
  /** The paid period (1 is the month bought at purchase) and when it ends (ISO 8601). */
  period: number;
  periodEnd: string;
  releaseRequested: boolean;
  /** Renewal attempts failed in a row. */
  failedAttempts: number;
  nextAttemptAt?: string;
  lastFailure?: string;
}

/** A renewal charge as its activity reports it. */
export type RenewalOutcome =
  | { outcome: 'paid'; period: number; periodEnd: string }
  /** Accepted by the provider, to be confirmed by its webhook (`paymentSettled`) or a later look. */
  | { outcome: 'processing' }
  | { outcome: 'failed'; reason: string };

/** How a purchase ended, as the purchase request waits for it (`purchaseUpdate`). */
export type PurchaseOutcome = { outcome: 'purchased' } | { outcome: 'payment_failed'; reason: string } | { outcome: 'provider_failed'; reason: string };

export interface PhoneNumberSubscriptionResult {
  /**
   * Why the subscription ended: its owner released the number, a renewal was never paid, its record is
   * gone, or its purchase did not go through.
   */
  reason: 'requested' | 'payment_failed' | 'deleted' | 'purchase_failed';
}
