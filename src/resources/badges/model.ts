import { Model } from 'objection';
import type { Color } from './schemas.ts';

/** The columns folders and labels share; each kind is a subclass naming its table. */
export class Badge extends Model {
  declare id: number;
  declare userId: number;
  declare name: string;
  declare color: Color | null;
  declare createdAt: Date;
  declare updatedAt: Date;
  /** Selected by the service's reads. */
  declare assistantsCount?: number;
}
