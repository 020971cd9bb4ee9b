import { Model } from 'objection';

export type DocumentType = 'website' | 'pdf' | 'txt' | 'docx';
export type DocumentStatus = 'processing' | 'active' | 'failed';

export const fileDocumentTypes: readonly DocumentType[] = ['pdf', 'txt', 'docx'];

export class Document extends Model {
  static override tableName = 'documents';
  // Without a JSON schema objection cannot tell that an array is meant for a jsonb column.
  static override jsonAttributes = ['urls'];

  declare id: number;
  declare userId: number;
  declare knowledgebaseId: number;
  declare name: string;
  declare description: string | null;
  declare type: DocumentType;
  declare status: DocumentStatus;
  /** Why processing failed, for the user. */
  declare error: string | null;
  /** Start pages of a website document. */
  declare urls: string[] | null;
  declare relativeLinksLimit: number | null;
  /** Storage key of the uploaded file of a pdf, txt or docx document. */
  declare fileKey: string | null;
  declare fileName: string | null;
  declare fileSize: number | null;
  declare createdAt: Date;
  declare updatedAt: Date;
}
