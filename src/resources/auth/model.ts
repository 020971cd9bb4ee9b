import { Model } from 'objection';
import type { TokenKind } from '../../api/middleware/auth.ts';

/** An API key or a session token; the secret itself is never stored, only its SHA-256. */
export class AccessToken extends Model {
  static override tableName = 'access_tokens';

  declare id: number;
  declare userId: number;
  declare kind: TokenKind;
  declare name: string;
  declare tokenHash: string;
  declare lastUsedAt: Date | null;
  declare expiresAt: Date | null;
  declare createdAt: Date;
  declare updatedAt: Date;
}
