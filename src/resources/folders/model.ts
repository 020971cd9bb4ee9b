import { Badge } from '../badges/model.ts';

export class Folder extends Badge {
  static override tableName = 'folders';
}
