import { Model } from 'objection';

export interface StoredHeader {
  name: string;
  /** Encrypted with the app key (lib/secrets.ts); see `HEADER_PURPOSE` in service.ts. */
  value: string;
}

export interface ToolParameter {
  name: string;
  type: 'string' | 'number' | 'boolean';
  description: string;
  required: boolean;
}

export class Tool extends Model {
  static override tableName = 'tools';
  static override jsonAttributes = ['headers', 'schema'];

  declare id: number;
  declare userId: number;
  declare name: string;
  declare description: string;
  declare endpoint: string;
  declare method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  declare timeout: number;
  declare headers: StoredHeader[];
  declare schema: ToolParameter[];
  declare createdAt: Date;
  declare updatedAt: Date;
}
