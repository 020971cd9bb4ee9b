import type { Knex } from 'knex';
import type { AuthContext, TokenKind } from '../../api/middleware/auth.ts';
import type { Clock } from '../../lib/clock.ts';
import { formatToken, parseToken, randomSecret, secretMatches, sha256Hex } from '../../lib/tokens.ts';
import { AccessToken } from './model.ts';

export async function issueToken(
  knex: Knex,
  input: { userId: number; kind: TokenKind; name: string; expiresAt?: Date },
): Promise<{ token: string; record: AccessToken }> {
  const secret = randomSecret();
  const record = await AccessToken.query(knex).insertAndFetch({
    userId: input.userId,
    kind: input.kind,
    name: input.name,
    tokenHash: sha256Hex(secret),
    expiresAt: input.expiresAt ?? null,
  });
  return { token: formatToken(record.id, secret), record };
}

interface TokenRow {
  id: number;
  kind: TokenKind;
  tokenHash: string;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  userId: number;
  name: string;
  email: string;
  planId: string;
}

// last_used_at is written at most once a minute per token, so authenticating is not a write per request.
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Finds the credential behind a bearer token: looked up by its id, then its secret compared with the stored
 * hash in constant time. Unknown, deleted and expired tokens all resolve to nothing.
 */
export function tokenResolver(knex: Knex, now: Clock): (plain: string) => Promise<AuthContext | undefined> {
  return async (plain) => {
    const parsed = parseToken(plain);
    if (!parsed) return undefined;
    const row = await knex('access_tokens as t')
      .join('users as u', 'u.id', 't.user_id')
      .where('t.id', parsed.id)
      .first<TokenRow | undefined>('t.id', 't.kind', 't.token_hash', 't.expires_at', 't.last_used_at', 'u.id as user_id', 'u.name', 'u.email', 'u.plan_id');
    if (!row || !secretMatches(parsed.secret, row.tokenHash)) return undefined;
    const at = now();
    if (row.expiresAt && row.expiresAt <= at) return undefined;
    if (!row.lastUsedAt || at.getTime() - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
      await knex('access_tokens').where({ id: row.id }).update({ lastUsedAt: at });
    }
    return {
      user: { id: row.userId, name: row.name, email: row.email, planId: row.planId },
      tokenId: row.id,
      tokenKind: row.kind,
    };
  };
}

export async function revokeToken(knex: Knex, tokenId: number): Promise<void> {
  await AccessToken.query(knex).deleteById(tokenId);
}
