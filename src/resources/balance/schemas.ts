import { Type } from '@sinclair/typebox';
import { IsoTimestamp, LaravelPage, nullable, PageNumber } from '../../api/schemas.ts';

/** USD with at most cents: card payments are in whole cents. */
const Usd = (minimum: number, maximum: number, description: string) => Type.Number({ minimum, maximum, multipleOf: 0.01, description });

export const TopUpBody = Type.Object({
  amount: Usd(5, 1000, 'USD, 5 to 1000, charged to the default card.'),
});

export const TopUpItem = Type.Object({
  id: Type.Integer(),
  amount: Type.Number(),
  status: Type.String({ enum: ['succeeded', 'processing', 'requires_action'] }),
  payment_id: nullable(Type.String()),
  balance: Type.Number({ description: 'USD, after this top-up where it is already credited.' }),
  created_at: IsoTimestamp,
}, { title: 'TopUp' });

export const TopUpAnswer = Type.Object({ message: Type.String(), data: TopUpItem });

/** A top-up whose card asks for 3-D Secure: the client confirms the PaymentIntent with Stripe.js (`confirmCardPayment`). */
export const TopUpAuthenticationAnswer = Type.Object({
  message: Type.String(),
  data: Type.Composite([TopUpItem, Type.Object({
    client_secret: Type.String({ description: "The PaymentIntent's client secret, for Stripe.js; the balance is credited when its webhook event says it succeeded." }),
  })], { title: 'TopUpRequiringAuthentication' }),
});

export const AutoRechargeBody = Type.Object({
  enabled: Type.Boolean(),
  threshold: Usd(0, 100_000, 'USD: a charge that leaves the balance below it recharges.'),
  amount: Usd(5, 1000, 'USD charged to the default card at each recharge.'),
});

export const AutoRechargeAnswer = Type.Object({
  message: Type.String(),
  data: Type.Object({ enabled: Type.Boolean(), threshold: Type.Number(), amount: Type.Number() }),
});

export const TransactionListQuery = Type.Object({
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 15, description: '1 to 100, default 15.' })),
  page: Type.Optional(PageNumber()),
});

export const TransactionItem = Type.Object({
  id: Type.Integer(),
  amount: Type.Number({ description: 'USD; credits are positive, charges negative.' }),
  type: Type.String({ examples: ['top_up', 'call', 'conversation_message', 'signup_credit'] }),
  description: nullable(Type.String()),
  reference: nullable(Type.String()),
  created_at: IsoTimestamp,
}, { title: 'BalanceTransaction' });

export const TransactionPage = LaravelPage(TransactionItem, 'BalanceTransactionPage');
