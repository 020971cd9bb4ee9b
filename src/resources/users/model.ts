import { Model } from 'objection';

export class User extends Model {
  static override tableName = 'users';

  declare id: number;
  declare name: string;
  declare email: string;
  declare passwordHash: string | null;
  declare timezone: string;
  declare planId: string;
  /** Set by the operator (`user:white-label-admin`): may use the `/white-label/*` routes. */
  declare whiteLabelAdmin: boolean;
  /** The white-label admin whose platform this user belongs to; null for an ordinary account. */
  declare whiteLabelOwnerId: number | null;
  declare createdAt: Date;
  declare updatedAt: Date;
}
