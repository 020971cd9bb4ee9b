import type { Knex } from 'knex';
import type { SecretBox } from '../lib/secrets.ts';
import { generateSigningSecret } from './signature.ts';

/** The purpose a signing secret is encrypted for (lib/secrets.ts binds it to the ciphertext). */
const PURPOSE = 'webhook-signing-secret';
/** How long a rotated-out secret keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

interface SecretRow {
  userId: number;
  secret: string;
  previousSecret: string | null;
  previousExpiresAt: Date | null;
}

/** The account's signing secret, made on first use; two concurrent first uses keep the one stored first. */
export async function signingSecret(knex: Knex, box: SecretBox, userId: number): Promise<string> {
  const row = await knex<SecretRow>('webhook_signing_secrets').where({ userId }).first();
  if (row) return box.decrypt(row.secret, PURPOSE);
  await knex('webhook_signing_secrets')
    .insert({ userId, secret: box.encrypt(generateSigningSecret(), PURPOSE) })
    .onConflict('user_id').ignore();
  return signingSecret(knex, box, userId);
}

/** The secrets that sign the account's webhooks at `now`: the current one, then the previous one while it overlaps. */
export async function signingSecrets(knex: Knex, box: SecretBox, userId: number, now: Date): Promise<string[]> {
  const current = await signingSecret(knex, box, userId);
  const row = await knex<SecretRow>('webhook_signing_secrets').where({ userId }).first();
  const overlapping = row?.previousSecret && row.previousExpiresAt && row.previousExpiresAt.getTime() > now.getTime();
  return overlapping && row.previousSecret ? [current, box.decrypt(row.previousSecret, PURPOSE)] : [current];
}

/**
 * Issues the account a new signing secret; the one it replaces keeps signing for ROTATION_OVERLAP_MS. Rows are
 * locked, so two rotations at once leave the secret of the second and, as previous, that of the first.
 */
export async function rotateSigningSecret(knex: Knex, box: SecretBox, userId: number, now: Date): Promise<string> {
  await signingSecret(knex, box, userId);
  const fresh = generateSigningSecret();
  await knex.transaction(async (trx) => {
    const row = await trx<SecretRow>('webhook_signing_secrets').where({ userId }).forUpdate().first();
    await trx('webhook_signing_secrets').where({ userId }).update({
      secret: box.encrypt(fresh, PURPOSE),
      previousSecret: row?.secret ?? null,
      previousExpiresAt: new Date(now.getTime() + ROTATION_OVERLAP_MS),
      updatedAt: now,
    });
  });
  return fresh;
}
