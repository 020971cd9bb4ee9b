import { hash, verify } from '@node-rs/argon2';

// argon2id with the library's defaults (19 MiB, 2 passes), OWASP's recommended minimum.
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

// A real hash of a throwaway password: checking it costs what checking a user's hash costs, so a login for an
// unknown email takes as long as one for a known email with a wrong password.
const decoyHash = hash('decoy password that matches no account');

/** Verifies against the stored hash, or against a decoy when there is none, so timing reveals nothing. */
export async function verifyPassword(password: string, storedHash: string | null | undefined): Promise<boolean> {
  if (!storedHash) {
    await verify(await decoyHash, password).catch(() => false);
    return false;
  }
  return verify(storedHash, password).catch(() => false);
}
