import { Model } from 'objection';

export type KnowledgebaseStatus = 'empty' | 'processing' | 'active' | 'failed';

export class Knowledgebase extends Model {
  static override tableName = 'knowledgebases';

  declare id: number;
  declare userId: number;
  declare name: string;
  declare description: string | null;
  declare status: KnowledgebaseStatus;
  declare createdAt: Date;
  declare updatedAt: Date;
  /** Selected by the list and get queries. */
  declare documentsCount?: number;
  declare assistantsCount?: number;
}
