import Stripe from 'stripe';
import type { PaymentsConfig } from '../../config.ts';
import { failureReasonOf, microsToCents, paymentOf, verifyStripeEvent } from './stripe-events.ts';
import { PaymentMethodRejectedError, type Card, type ChargeOutcome, type PaymentProvider } from './types.ts';

type StripeConfig = Extract<PaymentsConfig, { provider: 'stripe' }>;

function cardOf(method: Stripe.PaymentMethod): Card {
  if (!method.card) throw new PaymentMethodRejectedError('Only card payment methods are accepted.');
  return { id: method.id, brand: method.card.brand, last4: method.card.last4, expMonth: method.card.exp_month, expYear: method.card.exp_year };
}

/** Stripe through its official package; `apiBase` points it at stripe-mock in tests. */
export function createStripePayments(config: StripeConfig): PaymentProvider {
  const stripe = new Stripe(config.secretKey, {
    ...(config.apiBase ?? {}),
    // The package retries network failures itself, with the same idempotency key on charges.
    maxNetworkRetries: 2,
    telemetry: false,
  });

  return {
    name: 'stripe',

    async createCustomer({ userId, email, name }) {
      // No key of ours: user ids repeat across databases (a test deployment reset), and Stripe refuses a key
      // reused with other parameters. The package keys its own network retries; two first needs at once leave
      // one unused customer (payment-customers.ts keeps the first).
      const customer = await stripe.customers.create({ email, name, metadata: { parley_user_id: String(userId) } });
      return customer.id;
    },

    async createSetupIntent(customerId) {
      const intent = await stripe.setupIntents.create({ customer: customerId, usage: 'off_session' });
      if (!intent.client_secret) throw new Error('Stripe returned a SetupIntent without a client_secret');
      return { clientSecret: intent.client_secret };
    },

    async attachPaymentMethod(customerId, paymentMethodId) {
      try {
        return cardOf(await stripe.paymentMethods.attach(paymentMethodId, { customer: customerId }));
      } catch (error) {
        // An unknown id, another customer's card, a card Stripe will not attach: the user's input, not an outage.
        if (error instanceof Stripe.errors.StripeInvalidRequestError || error instanceof Stripe.errors.StripeCardError) {
          throw new PaymentMethodRejectedError(error.message, { cause: error });
        }
        throw error;
      }
    },

    async detachPaymentMethod(paymentMethodId) {
      await stripe.paymentMethods.detach(paymentMethodId);
    },

    async setDefaultPaymentMethod(customerId, paymentMethodId) {
      await stripe.customers.update(customerId, { invoice_settings: { default_payment_method: paymentMethodId } });
    },

    async charge(input): Promise<ChargeOutcome> {
      try {
        const intent = await stripe.paymentIntents.create({
          amount: microsToCents(input.amountMicros),
          currency: 'usd',
          customer: input.customerId,
          payment_method: input.paymentMethodId,
          description: input.description,
          metadata: input.metadata,
          confirm: true,
          off_session: input.offSession,
          // Nobody is there to follow a redirect: a method that needs one fails instead of asking for a return_url.
          automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
        }, { idempotencyKey: input.idempotencyKey });
        const payment = paymentOf(intent);
        if (payment.status === 'succeeded' || payment.status === 'processing') return { status: payment.status, paymentId: intent.id };
        // 3-D Secure for a charge the user makes: their browser completes it with Stripe.js. Off-session, Stripe
        // answers such a card with an `authentication_required` card error instead (below).
        if (payment.status === 'requires_action' && !input.offSession && payment.clientSecret) {
          return { status: 'requires_action', paymentId: intent.id, clientSecret: payment.clientSecret };
        }
        const reason = payment.failureReason ?? 'card_declined';
        return { status: 'failed', paymentId: intent.id, reason, message: intent.last_payment_error?.message ?? reason };
      } catch (error) {
        // A declined card is an answer, not an outage: Stripe sends it as a card error carrying the intent.
        if (error instanceof Stripe.errors.StripeCardError) {
          const intent = (error.raw as { payment_intent?: { id?: string } } | undefined)?.payment_intent;
          return { status: 'failed', paymentId: intent?.id ?? null, reason: failureReasonOf(error), message: error.message };
        }
        throw error;
      }
    },

    async retrievePayment(paymentId) {
      return paymentOf(await stripe.paymentIntents.retrieve(paymentId));
    },

    verifyWebhook: (payload, signatureHeader) => verifyStripeEvent(config.webhookSecret, payload, signatureHeader),
  };
}
