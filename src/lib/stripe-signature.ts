import { createHmac, timingSafeEqual } from 'node:crypto';

/** Stripe's own libraries refuse an event signed more than five minutes from now, so a captured one cannot be replayed later. */
export const STRIPE_SIGNATURE_TOLERANCE_SECONDS = 300;

/** Stripe's v1 scheme: hex HMAC-SHA256, keyed by the endpoint secret, of `${timestamp}.${body}`. */
export function stripeSignatureOf(secret: string, timestamp: number, payload: Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(payload).digest('hex');
}

/** Compares in constant time, so a forger learns nothing from how long a wrong guess took. */
function sameText(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Checks a `Stripe-Signature` header (`t=…,v1=…[,v1=…]`): one v1 entry must match (several are sent while a
 * secret is being rolled), and the timestamp must be within `toleranceSeconds` of `nowSeconds` either way: an
 * old one is a captured request replayed, and one from the future is a signature made to outlive the
 * tolerance (Stripe's `constructEvent` checks only the past). https://docs.stripe.com/webhooks#verify-manually
 */
export function isValidStripeSignature(options: {
  secret: string;
  header: string;
  payload: Buffer;
  toleranceSeconds: number;
  nowSeconds: number;
}): boolean {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const entry of options.header.split(',')) {
    const separator = entry.indexOf('=');
    if (separator < 0) continue;
    const key = entry.slice(0, separator).trim();
    const value = entry.slice(separator + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    if (key === 'v1') signatures.push(value);
  }
  if (timestamp === undefined || signatures.length === 0) return false;
  if (Math.abs(options.nowSeconds - timestamp) > options.toleranceSeconds) return false;
  const expected = stripeSignatureOf(options.secret, timestamp, options.payload);
  return signatures.some((signature) => sameText(expected, signature));
}
