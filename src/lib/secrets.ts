import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

/**
 * Secrets at rest (tool header values, provider keys) are AES-256-GCM under the app key. A stored value reads
 * `v1:<base64 of iv | tag | ciphertext>`: the version names the scheme so that a later key rotation or
 * algorithm can tell old values apart and re-encrypt them.
 */
export const APP_KEY_BYTES = 32;
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretDecryptionError extends Error {
  override name = 'SecretDecryptionError';
}

/** Decodes an app key written as base64 (optionally prefixed `base64:`), or `undefined` when it is not 32 bytes. */
export function decodeAppKey(text: string): Buffer | undefined {
  const body = text.trim().replace(/^base64:/, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return undefined;
  const key = Buffer.from(body, 'base64');
  return key.length === APP_KEY_BYTES ? key : undefined;
}

export function generateAppKey(): string {
  return randomBytes(APP_KEY_BYTES).toString('base64');
}

export interface SecretBox {
  /**
   * `purpose` is bound to the ciphertext as associated data, so a value encrypted for one use (a tool header)
   * cannot be copied into a column of another use and decrypt there.
   */
  encrypt(plain: string, purpose: string): string;
  decrypt(stored: string, purpose: string): string;
  /**
   * HMAC-SHA256 of `message` for `purpose`, in hex, under a key derived from the app key (not the encryption
   * key itself): what signed links carry (lib/signed-links.ts).
   */
  sign(message: string, purpose: string): string;
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== APP_KEY_BYTES) throw new Error(`The app key must be ${APP_KEY_BYTES} bytes, got ${key.length}.`);
  const signingKey = createHmac('sha256', key).update('parley:signing-key').digest();
  return {
    encrypt(plain, purpose) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(purpose, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
    },
    decrypt(stored, purpose) {
      const separator = stored.indexOf(':');
      const version = stored.slice(0, separator);
      if (separator === -1 || version !== VERSION) throw new SecretDecryptionError('The stored secret has an unknown format.');
      const raw = Buffer.from(stored.slice(separator + 1), 'base64');
      if (raw.length < IV_BYTES + TAG_BYTES) throw new SecretDecryptionError('The stored secret is truncated.');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(purpose, 'utf8'));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      try {
        return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretDecryptionError('The stored secret does not decrypt with this app key (was APP_KEY changed?).');
      }
    },
    sign(message, purpose) {
      return createHmac('sha256', signingKey).update(`${purpose}\n${message}`).digest('hex');
    },
  };
}
