import { randomUUID } from 'node:crypto';
import type { FileStorage } from '../providers/storage/index.ts';

/** Storage keys of a document: its upload, and the work files its ingestion writes between steps. */
export const documentKeys = {
  /** Uploads are stored before their document exists, so they are named by a random id. */
  upload: (fileName: string) => `uploads/${randomUUID()}${/\.[a-z0-9]{1,8}$/i.exec(fileName)?.[0]?.toLowerCase() ?? ''}`,
  work: (documentId: number) => `documents/${documentId}/`,
  manifest: (documentId: number) => `documents/${documentId}/manifest.json`,
  source: (documentId: number, index: number) => `documents/${documentId}/source-${index}.html`,
  sections: (documentId: number) => `documents/${documentId}/sections.json`,
};

/** Removes everything a document ever stored; safe to repeat. */
export async function deleteDocumentFiles(storage: FileStorage, document: { id: number; fileKey: string | null }): Promise<void> {
  await storage.deletePrefix(documentKeys.work(document.id));
  if (document.fileKey) await storage.delete(document.fileKey);
}
