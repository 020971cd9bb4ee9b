import { createHash, randomInt, timingSafeEqual } from 'node:crypto';

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random secret of letters and digits (48 characters: about 285 bits). */
export function randomSecret(length = 48): string {
  let secret = '';
  for (let i = 0; i < length; i++) secret += alphabet[randomInt(alphabet.length)];
  return secret;
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Tokens read `<id>|<secret>`, the form API clients of the original platform already handle. */
export function formatToken(id: number, secret: string): string {
  return `${id}|${secret}`;
}

export function parseToken(token: string): { id: number; secret: string } | undefined {
  const match = /^(\d{1,15})\|([A-Za-z0-9]{40,128})$/.exec(token);
  if (!match) return undefined;
  return { id: Number(match[1]), secret: match[2] as string };
}

/** Compares a presented secret with a stored SHA-256 hex digest in time independent of where they differ. */
export function secretMatches(secret: string, storedHashHex: string): boolean {
  const presented = Buffer.from(sha256Hex(secret), 'hex');
  const stored = Buffer.from(storedHashHex, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
