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

/** The account's row, made with a first secret on first use; two concurrent first uses keep the one stored first. */
async function secretRow(knex: Knex, box: SecretBox, userId: number): Promise<SecretRow> {
  const row = await knex<SecretRow>('webhook_signing_secrets').where({ userId }).first();
  if (row) return row;
  await knex('webhook_signing_secrets')
    .insert({ userId, secret: box.encrypt(generateSigningSecret(), PURPOSE) })
    .onConflict('user_id').ignore();
  return secretRow(knex, box, userId);
}

/** The account's current signing secret. */
export async function signingSecret(knex: Knex, box: SecretBox, userId: number): Promise<string> {
  return box.decrypt((await secretRow(knex, box, userId)).secret, PURPOSE);
}

/** The secrets that sign the account's webhooks at `now`: the current one, then the previous one while it overlaps. */
export async function signingSecrets(knex: Knex, box: SecretBox, userId: number, now: Date): Promise<string[]> {
  const row = await secretRow(knex, box, userId);
  const current = box.decrypt(row.secret, PURPOSE);
  if (!row.previousSecret || !row.previousExpiresAt || row.previousExpiresAt.getTime() <= now.getTime()) return [current];
  return [current, box.decrypt(row.previousSecret, PURPOSE)];
}

/**
 * Issues the account a new signing secret; the one it replaces keeps signing until `previousExpiresAt`
 * (ROTATION_OVERLAP_MS). The row is locked, so two rotations at once leave the secret of the second and, as
 * previous, that of the first.
 */
export async function rotateSigningSecret(knex: Knex, box: SecretBox, userId: number, now: Date): Promise<{ secret: string; previousExpiresAt: Date }> {
  await secretRow(knex, box, userId);
  const secret = generateSigningSecret();
  const previousExpiresAt = new Date(now.getTime() + ROTATION_OVERLAP_MS);
  await knex.transaction(async (trx) => {
    const row = await trx<SecretRow>('webhook_signing_secrets').where({ userId }).forUpdate().first();
    await trx('webhook_signing_secrets').where({ userId }).update({
      secret: box.encrypt(secret, PURPOSE),
      previousSecret: row?.secret ?? null,
      previousExpiresAt,
      updatedAt: now,
    });
  });
  return { secret, previousExpiresAt };
}

/** The purpose a WhatsApp sender's signing secret is encrypted for. */
export const SENDER_SECRET_PURPOSE = 'whatsapp-sender-signing-secret';

/** A WhatsApp sender's signing secret, which signs its read receipts (anchor §13.3). */
export async function senderSigningSecret(knex: Knex, box: SecretBox, senderId: number): Promise<string> {
  const row = await knex('whatsapp_senders').where({ id: senderId }).first<{ signingSecret: string } | undefined>('signingSecret');
  if (!row) throw new Error(`WhatsApp sender ${senderId} is gone.`);
  return box.decrypt(row.signingSecret, SENDER_SECRET_PURPOSE);
}
