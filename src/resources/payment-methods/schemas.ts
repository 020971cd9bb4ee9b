import { Type } from '@sinclair/typebox';
import { MESSAGES } from '../../api/validation.ts';

const PAYMENT_METHOD_ID = '^pm_[A-Za-z0-9_]{1,200}$';
const idTexts = { pattern: 'The :attribute field must be a Stripe PaymentMethod id (pm_...).' };

export const AddPaymentMethodBody = Type.Object({
  payment_method: Type.String({
    pattern: PAYMENT_METHOD_ID,
    description: 'A PaymentMethod id: one Stripe.js created from the SetupIntent, or a Stripe test id such as `pm_card_visa`.',
    [MESSAGES]: idTexts,
  }),
});

/** Path parameter `{id}`: the PaymentMethod id the card was listed with. */
export const PaymentMethodParams = Type.Object({
  id: Type.String({ pattern: PAYMENT_METHOD_ID, [MESSAGES]: idTexts }),
});

export const PaymentMethodItem = Type.Object({
  id: Type.String({ examples: ['pm_1PqR2sT3uV4wX5yZ'] }),
  brand: Type.String({ examples: ['visa'] }),
  last4: Type.String({ examples: ['4242'] }),
  exp_month: Type.Integer(),
  exp_year: Type.Integer(),
  is_default: Type.Boolean(),
}, { title: 'PaymentMethod' });

export const PaymentMethodAnswer = Type.Object({ message: Type.String(), data: PaymentMethodItem });
export const PaymentMethodList = Type.Object({ data: Type.Array(PaymentMethodItem) });
export const SetupIntentAnswer = Type.Object({ data: Type.Object({ client_secret: Type.String() }) });
