import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { MessageBody } from '../../api/schemas.ts';
import type { PaymentDeps } from '../../billing/payment-customers.ts';
import { customerFor } from '../../billing/payment-customers.ts';
import { AddPaymentMethodBody, PaymentMethodAnswer, PaymentMethodList, PaymentMethodParams, SetupIntentAnswer } from './schemas.ts';
import { paymentMethodItem } from './serialize.ts';
import { addPaymentMethod, deletePaymentMethod, listPaymentMethods, setDefaultPaymentMethod } from './service.ts';

const TAG = 'Payment methods';

/** Cards, shaped as Stripe users expect; card numbers never reach Parley (Stripe.js turns them into a `pm_...`). */
export interface PaymentMethodRouteDeps extends PaymentDeps {
  /** The user's default card changed: renewals that failed are tried again with it. */
  onDefaultChanged: (userId: number) => Promise<void>;
}

export function paymentMethodRoutes(deps: PaymentMethodRouteDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/user/payment-methods/setup-intent',
      tag: TAG,
      summary: "A SetupIntent's client_secret, for Stripe.js to collect a card and create its PaymentMethod",
      auth: 'bearer',
      responses: { 200: { description: 'The SetupIntent', schema: SetupIntentAnswer } },
      async handle({ auth }) {
        const { clientSecret } = await deps.payments.createSetupIntent(await customerFor(deps, auth.user.id));
        return { body: { data: { client_secret: clientSecret } } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/user/payment-methods',
      tag: TAG,
      summary: 'Attach a PaymentMethod (the first card becomes the default)',
      description: 'An id the provider does not accept (unknown, or another customer\'s) is a 422 on `payment_method`.',
      auth: 'bearer',
      body: AddPaymentMethodBody,
      responses: { 201: { description: 'Attached', schema: PaymentMethodAnswer } },
      async handle({ auth, body }) {
        const method = await addPaymentMethod(deps, auth.user.id, body.payment_method);
        if (method.isDefault) await deps.onDefaultChanged(auth.user.id);
        return { status: 201, body: { message: 'Payment method added successfully.', data: paymentMethodItem(method) } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/user/payment-methods',
      tag: TAG,
      summary: "The caller's cards, oldest first",
      auth: 'bearer',
      responses: { 200: { description: 'The cards', schema: PaymentMethodList } },
      async handle({ auth }) {
        return { body: { data: (await listPaymentMethods(deps, auth.user.id)).map(paymentMethodItem) } };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/user/payment-methods/{id}',
      tag: TAG,
      summary: 'Detach a card; when it was the default, the newest remaining card becomes the default',
      auth: 'bearer',
      params: PaymentMethodParams,
      responses: { 200: { description: 'Removed', schema: MessageBody } },
      async handle({ auth, params }) {
        await deletePaymentMethod(deps, auth.user.id, params.id);
        return { body: { message: 'Payment method removed successfully.' } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/user/payment-methods/{id}/default',
      tag: TAG,
      summary: 'Make a card the default, which top-ups, auto-recharge and renewals charge',
      auth: 'bearer',
      params: PaymentMethodParams,
      responses: { 200: { description: 'The new default', schema: PaymentMethodAnswer } },
      async handle({ auth, params }) {
        const method = await setDefaultPaymentMethod(deps, auth.user.id, params.id);
        await deps.onDefaultChanged(auth.user.id);
        return { body: { message: 'Default payment method updated successfully.', data: paymentMethodItem(method) } };
      },
    }),
  ];
}
