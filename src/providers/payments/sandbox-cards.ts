import type { FailureReason } from './types.ts';

/** How a card made from one of Stripe's test PaymentMethods behaves when charged. */
export interface TestCard {
  brand: string;
  last4: string;
  /** Undefined: every charge succeeds. */
  decline?: { reason: FailureReason; message: string };
  /**
   * The card asks for 3-D Secure on every charge: a charge the user makes waits for them to authenticate
   * (`requires_action`); an off-session one, with nobody there to authenticate, fails as `decline` says.
   */
  requiresAuthentication?: true;
}

/**
 * Stripe's test PaymentMethod ids and the cards behind them (https://docs.stripe.com/testing), with the same
 * brands, last four digits and charge outcomes as Stripe's test mode.
 */
export const testCards: Record<string, TestCard> = {
  pm_card_visa: { brand: 'visa', last4: '4242' },
  pm_card_visa_debit: { brand: 'visa', last4: '5556' },
  pm_card_mastercard: { brand: 'mastercard', last4: '4444' },
  pm_card_amex: { brand: 'amex', last4: '8431' },
  pm_card_chargeDeclined: { brand: 'visa', last4: '0002', decline: { reason: 'card_declined', message: 'Your card was declined.' } },
  pm_card_chargeDeclinedInsufficientFunds: {
    brand: 'visa',
    last4: '9995',
    decline: { reason: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  },
  pm_card_chargeDeclinedExpiredCard: { brand: 'visa', last4: '0069', decline: { reason: 'expired_card', message: 'Your card has expired.' } },
  // 4000 0027 6000 3184.
  pm_card_authenticationRequired: {
    brand: 'visa',
    last4: '3184',
    requiresAuthentication: true,
    decline: { reason: 'authentication_required', message: 'Your card was declined. This transaction requires authentication.' },
  },
};
