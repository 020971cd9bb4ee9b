import { Badge } from '../badges/model.ts';

export class Label extends Badge {
  static override tableName = 'labels';
}
