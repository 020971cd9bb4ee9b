import { ConfigError } from './error.ts';
import type { Reader } from './reader.ts';

/**
 * The payment provider: the embedded sandbox (Stripe's test mode, simulated, state in the database) or Stripe.
 * `webhookSecret` verifies `/api/billing/stripe/webhook` on both; without one that route refuses every request.
 */
export type PaymentsConfig = {
  webhookSecret: string | undefined;
} & (
  | { provider: 'sandbox' }
  | {
    provider: 'stripe';
    secretKey: string;
    /** Another Stripe API server (stripe-mock in tests): protocol, host and port; unset means api.stripe.com. */
    apiBase: { protocol: 'http' | 'https'; host: string; port: number } | undefined;
  }
);

export function readPayments(read: Reader): PaymentsConfig {
  const provider = read.oneOf('PAYMENTS_PROVIDER', ['sandbox', 'stripe'] as const, 'sandbox');
  const webhookSecret = read.string('STRIPE_WEBHOOK_SECRET');
  if (provider === 'sandbox') return { provider, webhookSecret };
  const secretKey = read.string('STRIPE_SECRET_KEY');
  if (secretKey === undefined) throw new ConfigError('STRIPE_SECRET_KEY', 'is required when PAYMENTS_PROVIDER is stripe.');
  // Without it Stripe's events (a top-up confirmed later, a renewal's outcome) could never be believed.
  if (webhookSecret === undefined) throw new ConfigError('STRIPE_WEBHOOK_SECRET', 'is required when PAYMENTS_PROVIDER is stripe (the signing secret of the webhook endpoint, whsec_...).');
  const base = read.url('STRIPE_API_BASE', ['http:', 'https:']);
  let apiBase: Extract<PaymentsConfig, { provider: 'stripe' }>['apiBase'];
  if (base !== undefined) {
    const url = new URL(base);
    const protocol = url.protocol === 'http:' ? 'http' : 'https';
    apiBase = { protocol, host: url.hostname, port: url.port ? Number(url.port) : protocol === 'http' ? 80 : 443 };
  }
  return { provider, webhookSecret, secretKey, apiBase };
}
