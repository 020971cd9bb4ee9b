import type { Knex } from 'knex';
import type { PaymentsConfig } from '../../config.ts';
import { systemClock } from '../../lib/clock.ts';
import { createSandboxPayments } from './sandbox.ts';
import { createStripePayments } from './stripe.ts';
import type { PaymentProvider } from './types.ts';

export type { PaymentProvider };

/**
 * The provider of PAYMENTS_PROVIDER. The sandbox keeps its state in Parley's database, which the process opens
 * after building its providers: `knex` is asked for it on first use.
 */
export function createPayments(config: PaymentsConfig, knex: () => Knex): PaymentProvider {
  if (config.provider === 'stripe') return createStripePayments(config);
  return createSandboxPayments({ knex, webhookSecret: config.webhookSecret, clock: systemClock });
}
