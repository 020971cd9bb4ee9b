import { Model } from 'objection';

export class User extends Model {
  static override tableName = 'users';

  declare id: number;
  declare name: string;
  declare email: string;
  declare passwordHash: string | null;
  declare timezone: string;
  declare planId: string;
  declare createdAt: Date;
  declare updatedAt: Date;
}
