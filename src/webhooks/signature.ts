import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The `X-Parley-Signature` header: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, with one `v1=`
 * per signing secret in force (two during the 24 hours after a rotation, the new one first), as Stripe signs
 * its events, so receivers that verify Stripe's can verify these with the same few lines.
 */
export const SIGNATURE_HEADER = 'X-Parley-Signature';
const SECRET_PREFIX = 'whsec_';

export function generateSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(24).toString('base64url')}`;
}

function hmac(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/** The header's value for `body` sent at `timestamp` (Unix seconds), signed with each of `secrets`. */
export function signatureHeader(body: string, secrets: readonly string[], timestamp: number): string {
  if (secrets.length === 0) throw new Error('A webhook is signed with at least one secret.');
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${hmac(secret, timestamp, body)}`)].join(',');
}

/**
 * Whether `header` carries a signature of `body` by `secret`, made at most `toleranceSeconds` from `now` (Unix
 * seconds), so that a captured request cannot be replayed later. What a receiver does; Parley's tests do it too.
 */
export function verifySignature(header: string, body: string, secret: string, now: number, toleranceSeconds = 300): boolean {
  const parts = header.split(',').map((part) => part.trim().split('='));
  const timestamp = Number(parts.find(([name]) => name === 't')?.[1]);
  if (!Number.isInteger(timestamp) || Math.abs(now - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(hmac(secret, timestamp, body), 'hex');
  return parts.some(([name, value]) => name === 'v1' && value !== undefined && /^[0-9a-f]{64}$/.test(value)
    && timingSafeEqual(Buffer.from(value, 'hex'), expected));
}

/**
 * The `X-Signature-256` header of WhatsApp read receipts (anchor §13.3): `sha256=<hex HMAC-SHA256 of the raw
 * body>`, keyed with the sender's signing secret, as Meta signs its own webhooks.
 */
export const SHA256_SIGNATURE_HEADER = 'X-Signature-256';

export function sha256SignatureHeader(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}
