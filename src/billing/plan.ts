import { Model } from 'objection';

export class Plan extends Model {
  static override tableName = 'plans';

  declare id: string;
  declare name: string;
  declare midCallTools: number | null;
  declare assistants: number | null;
  declare campaigns: number | null;
  declare knowledgebases: number | null;
  declare maxCallsInParallel: number | null;
  declare isDefault: boolean;
}
