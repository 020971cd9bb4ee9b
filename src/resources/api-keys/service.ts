import type { Knex } from 'knex';
import { NotFoundError } from '../../lib/errors.ts';
import { AccessToken } from '../auth/model.ts';
import { issueToken } from '../auth/tokens.ts';

export function createApiKey(knex: Knex, userId: number, name: string): Promise<{ token: string; record: AccessToken }> {
  return issueToken(knex, { userId, kind: 'api_key', name });
}

export async function listApiKeys(knex: Knex, userId: number): Promise<AccessToken[]> {
  return AccessToken.query(knex).where({ userId, kind: 'api_key' }).orderBy('id');
}

/** Deletes one of the caller's keys; it stops authenticating at once. Another user's key is not found. */
export async function deleteApiKey(knex: Knex, userId: number, id: number): Promise<void> {
  const deleted = await AccessToken.query(knex).delete().where({ id, userId, kind: 'api_key' });
  if (deleted === 0) throw new NotFoundError('API key not found.');
}
