import { Model } from 'objection';
import type { Color } from './schemas.ts';

export class Folder extends Model {
  static override tableName = 'folders';

  declare id: number;
  declare userId: number;
  declare name: string;
  declare color: Color | null;
  declare createdAt: Date;
  declare updatedAt: Date;
  /** Selected by the service's reads. */
  declare assistantsCount?: number;
}
