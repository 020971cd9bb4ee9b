import { Model } from 'objection';
import type { Color } from '../folders/schemas.ts';

export class Label extends Model {
  static override tableName = 'labels';

  declare id: number;
  declare userId: number;
  declare name: string;
  declare color: Color | null;
  declare createdAt: Date;
  declare updatedAt: Date;
  /** Selected by the service's reads. */
  declare assistantsCount?: number;
}
