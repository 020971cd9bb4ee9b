import type { Knex } from 'knex';
import { NotFoundError, ValidationError } from '../../lib/errors.ts';
import type { Logger } from '../../logger.ts';
import type { FileStorage } from '../../providers/storage/index.ts';
import type { TemporalClient } from '../../temporal/client.ts';
import { findOwnedKnowledgebase } from '../knowledgebases/service.ts';
import { recomputeKnowledgebaseStatus } from '../../knowledge/status.ts';
import { deleteDocumentFiles } from '../../knowledge/files.ts';
import { Document, fileDocumentTypes, type DocumentType } from './model.ts';
import { cancelDocumentIngestion, startDocumentIngestion } from '../../temporal/starters.ts';

export interface DocumentDeps {
  knex: Knex;
  temporal: TemporalClient;
  storage: FileStorage;
  logger: Logger;
}

/** A file the multipart parser stored; `claimed` tells the parser to keep it after the request. */
export interface StoredUpload {
  key: string;
  fileName: string;
  size: number;
  claimed: boolean;
}

export interface CreateDocumentInput {
  name: string;
  description?: string | null;
  type: DocumentType;
  url?: string;
  links?: { link: string }[];
  relative_links_limit?: number;
}

const documentNotFound = () => new NotFoundError('Document not found.');

// Uploads are checked by content, not by name: a file must look like what its type says.
const signatures: Partial<Record<DocumentType, { bytes: Buffer; within: number; label: string }>> = {
  pdf: { bytes: Buffer.from('%PDF-'), within: 1024, label: 'pdf' },
  docx: { bytes: Buffer.from([0x50, 0x4b, 0x03, 0x04]), within: 4, label: 'docx' },
};

async function checkContent(storage: FileStorage, upload: StoredUpload, type: DocumentType): Promise<void> {
  const signature = signatures[type];
  if (upload.size === 0) throw ValidationError.of('file', 'The file field must not be empty.');
  if (!signature) return;
  const head = (await storage.read(upload.key)).subarray(0, signature.within);
  if (!head.includes(signature.bytes)) throw ValidationError.of('file', `The file field must be a file of type: ${signature.label}.`);
}

export async function listDocuments(knex: Knex, userId: number, knowledgebaseId: number): Promise<Document[]> {
  await findOwnedKnowledgebase(knex, userId, knowledgebaseId);
  return Document.query(knex).where({ knowledgebaseId }).orderBy('id');
}

export async function getDocument(knex: Knex, userId: number, knowledgebaseId: number, documentId: number): Promise<Document> {
  await findOwnedKnowledgebase(knex, userId, knowledgebaseId);
  const document = await Document.query(knex).findOne({ id: documentId, knowledgebaseId });
  if (!document) throw documentNotFound();
  return document;
}

/**
 * Creates a document in `processing` and starts its ingestion. Website documents need `url` or `links`;
 * file types need an upload. When the workflow cannot be started, the document is removed again and the
 * error goes on (the route answers it with its documented failure text).
 */
export async function createDocument(
  deps: DocumentDeps,
  userId: number,
  knowledgebaseId: number,
  input: CreateDocumentInput,
  upload: StoredUpload | undefined,
): Promise<Document> {
  const knowledgebase = await findOwnedKnowledgebase(deps.knex, userId, knowledgebaseId);
  const isFile = fileDocumentTypes.includes(input.type);
  let urls: string[] | null = null;
  if (isFile) {
    if (!upload) throw ValidationError.of('file', 'A file is required for this document type.');
    await checkContent(deps.storage, upload, input.type);
  } else {
    if (input.url === undefined && input.links === undefined) {
      throw new ValidationError({
        url: ['The url field is required when links is not present.'],
        links: ['The links field is required when url is not present.'],
      });
    }
    urls = [...new Set([...(input.url ? [input.url] : []), ...(input.links ?? []).map((item) => item.link)])];
  }

  const document = await deps.knex.transaction(async (trx) => {
    const created = await Document.query(trx).insertAndFetch({
      userId,
      knowledgebaseId: knowledgebase.id,
      name: input.name,
      description: input.description || null,
      type: input.type,
      status: 'processing',
      urls,
      relativeLinksLimit: isFile ? null : (input.relative_links_limit ?? 10),
      fileKey: isFile && upload ? upload.key : null,
      fileName: isFile && upload ? upload.fileName.slice(0, 255) : null,
      fileSize: isFile && upload ? upload.size : null,
    });
    await recomputeKnowledgebaseStatus(trx, knowledgebase.id);
    return created;
  });
  if (isFile && upload) upload.claimed = true;

  try {
    await startDocumentIngestion(deps.temporal, document, deps.logger);
  } catch (error) {
    await Document.query(deps.knex).deleteById(document.id);
    await recomputeKnowledgebaseStatus(deps.knex, knowledgebase.id);
    await deleteDocumentFiles(deps.storage, document);
    throw error;
  }
  return document;
}

/** Name and description only: the content of a document cannot change. */
export async function updateDocument(
  knex: Knex,
  userId: number,
  knowledgebaseId: number,
  documentId: number,
  input: { name?: string; description?: string | null },
): Promise<Document> {
  const document = await getDocument(knex, userId, knowledgebaseId, documentId);
  const changes: Partial<Document> = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.description !== undefined) changes.description = input.description || null;
  if (Object.keys(changes).length === 0) return document;
  return Document.query(knex).patchAndFetchById(document.id, { ...changes, updatedAt: new Date() });
}

/**
 * Deletes a document: its ingestion is cancelled first (a cancelled ingestion removes what it was
 * writing), then the record with its chunks, then its stored files; the knowledge base status follows.
 */
export async function deleteDocument(deps: DocumentDeps, userId: number, knowledgebaseId: number, documentId: number): Promise<void> {
  const document = await getDocument(deps.knex, userId, knowledgebaseId, documentId);
  if (document.status === 'processing') await cancelDocumentIngestion(deps.temporal, document.id);
  await deps.knex.transaction(async (trx) => {
    await Document.query(trx).deleteById(document.id);
    await recomputeKnowledgebaseStatus(trx, document.knowledgebaseId);
  });
  await deleteDocumentFiles(deps.storage, document);
}
