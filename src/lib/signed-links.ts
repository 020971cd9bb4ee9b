import { timingSafeEqual } from 'node:crypto';
import type { SecretBox } from './secrets.ts';

/**
 * Links that grant access to one path until a time, without a credential: the path and the expiry (Unix
 * seconds) are signed with the app key, and both travel in the query (`?expires=…&signature=…`, as Laravel's
 * temporary signed routes write them). The host is not signed, so a link keeps working behind a proxy.
 */
const PURPOSE = 'signed-link';

function signature(secrets: SecretBox, path: string, expires: number): string {
  return secrets.sign(`${path}?expires=${expires}`, PURPOSE);
}

/** `path` with the query that lets anyone read it until `expiresAt` (to the second). */
export function signPath(secrets: SecretBox, path: string, expiresAt: Date): string {
  const expires = Math.floor(expiresAt.getTime() / 1000);
  return `${path}?expires=${expires}&signature=${signature(secrets, path, expires)}`;
}

export type LinkCheck = 'valid' | 'expired' | 'invalid';

/** Whether `expires` and `signature` from a request's query were made by `signPath` for `path`, and still hold at `now`. */
export function checkSignedPath(
  secrets: SecretBox,
  path: string,
  query: { expires?: unknown; signature?: unknown },
  now: Date,
): LinkCheck {
  const { expires, signature: given } = query;
  if (typeof expires !== 'string' || !/^\d{1,12}$/.test(expires) || typeof given !== 'string') return 'invalid';
  const expected = Buffer.from(signature(secrets, path, Number(expires)));
  const actual = Buffer.from(given);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return 'invalid';
  return Number(expires) * 1000 > now.getTime() ? 'valid' : 'expired';
}
