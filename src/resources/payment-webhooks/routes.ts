import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import type { SignatureVerifier } from '../../api/middleware/signatures.ts';
import { MessageBody } from '../../api/schemas.ts';
import { BadRequestError } from '../../lib/errors.ts';
import { handlePaymentEvent, type SubscriptionPaymentHandler } from '../../billing/payment-events.ts';
import type { Knex } from '../../db/database.ts';
import type { Logger } from '../../logger.ts';
import type { PaymentProvider } from '../../providers/payments/types.ts';

export interface PaymentWebhookDeps {
  knex: Knex;
  payments: PaymentProvider;
  logger: Logger;
  /** Told of each payment event of a phone number subscription; logged when nothing is connected. */
  onSubscriptionPayment: SubscriptionPaymentHandler;
}

/**
 * `POST /api/billing/stripe/webhook`: Stripe's events (`payment_intent.succeeded`, `payment_intent.payment_failed`),
 * verified by `Stripe-Signature` over the raw body before anything is read; the sandbox provider accepts events
 * signed the same way. Each event acts once, however often it is delivered.
 */
export function paymentWebhookRoutes(deps: PaymentWebhookDeps): RouteDefinition[] {
  const { knex, payments, logger, onSubscriptionPayment } = deps;
  const verifier: SignatureVerifier = {
    scheme: 'stripe',
    verify: (request) => payments.verifyWebhook(request.rawBody, request.header('stripe-signature')) !== undefined,
  };
  return [
    defineRoute({
      method: 'POST',
      path: '/billing/stripe/webhook',
      tag: 'Provider callbacks',
      summary: "Stripe's webhook events (register this URL in the Stripe dashboard)",
      auth: verifier,
      bodyKind: 'raw',
      responses: { 200: { description: 'Received', schema: MessageBody } },
      async handle({ rawBody, ctx }) {
        // Verified by the route's auth just before; parsed again here to keep the verifier a plain yes or no.
        const event = payments.verifyWebhook(rawBody ?? Buffer.alloc(0), ctx.get('stripe-signature'));
        if (!event) throw new BadRequestError('Unreadable event.');
        const handling = await handlePaymentEvent({ knex, onSubscriptionPayment }, event);
        logger.info({ eventId: event.id, type: event.type, handling }, 'payment webhook event');
        return { body: { message: 'Received.' } };
      },
    }),
  ];
}
