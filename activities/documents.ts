import { CancelledFailure, Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import pgvector from 'pgvector';
import type { Config } from '../src/config.ts';
import { NotFoundError, RejectedError } from '../src/lib/errors.ts';
import type { Logger } from '../src/logger.ts';
import { EmbeddingsError } from '../src/providers/embeddings/index.ts';
import type { Providers } from '../src/providers/index.ts';
import type { FileStorage } from '../src/providers/storage/index.ts';
import { crawlWebsite } from '../src/knowledge/ingestion/crawl.ts';
import type { ExtractionSource, Section } from '../src/knowledge/ingestion/extract.ts';
import { chunkIsolated, extractIsolated } from '../src/knowledge/ingestion/isolated-extraction.ts';
import { documentKeys } from '../src/knowledge/files.ts';
import { Document } from '../src/resources/documents/model.ts';
import { recomputeKnowledgebaseStatus } from '../src/knowledge/status.ts';

interface ManifestEntry {
  key: string;
  kind: 'html' | 'pdf' | 'docx' | 'txt';
  url?: string;
}

const insertBatchSize = 200;

function inActivity(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/**
 * Heartbeats every second while a step runs, so that Temporal knows the worker lives and a cancellation
 * (the document was deleted) reaches the step within about a second, through `signal`.
 */
async function heartbeating<T>(run: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
  const context = inActivity();
  if (!context) return run(undefined);
  context.heartbeat();
  const timer = setInterval(() => context.heartbeat(), 1000);
  try {
    return await run(context.cancellationSignal);
  } catch (error) {
    if (context.cancellationSignal.aborted) throw new CancelledFailure('The document was deleted.');
    throw error;
  } finally {
    clearInterval(timer);
  }
}

async function loadDocument(knex: Knex, documentId: number): Promise<Document> {
  const document = await Document.query(knex).findById(documentId);
  if (!document) throw new NotFoundError(`Document ${documentId} no longer exists.`);
  return document;
}

async function readJson<T>(storage: FileStorage, key: string): Promise<T> {
  return JSON.parse((await storage.read(key)).toString('utf8')) as T;
}

export interface DocumentActivityDependencies {
  knex: Knex;
  logger: Logger;
  config: Pick<Config, 'fetch' | 'ingestion'>;
  providers: Pick<Providers, 'storage' | 'fetch' | 'embeddings'>;
}

export function createDocumentActivities({ knex, logger, config, providers }: DocumentActivityDependencies) {
  const { storage, fetch: safeFetch, embeddings } = providers;

  return {
    /** Website: crawl into work files. File: point at the stored upload. Rewrites the same keys on retry. */
    async acquireDocumentSource({ documentId }: { documentId: number }): Promise<{ sources: number; skipped: number }> {
      const document = await loadDocument(knex, documentId);
      if (document.type !== 'website') {
        if (!document.fileKey || !(await storage.exists(document.fileKey))) throw new RejectedError('The uploaded file is missing.');
        await storage.write(documentKeys.manifest(documentId), JSON.stringify([{ key: document.fileKey, kind: document.type }]));
        return { sources: 1, skipped: 0 };
      }
      const crawl = await heartbeating((signal) => crawlWebsite({
        seeds: document.urls ?? [],
        linkLimit: document.relativeLinksLimit ?? 10,
        fetch: safeFetch,
        userAgent: config.fetch.userAgent,
        signal,
      }));
      if (crawl.pages.length === 0) {
        throw new RejectedError(crawl.skipped[0]?.reason ? `No page could be read. ${crawl.skipped[0].reason}` : 'No page could be read.');
      }
      const manifest: ManifestEntry[] = [];
      for (const [index, page] of crawl.pages.entries()) {
        const key = documentKeys.source(documentId, index);
        await storage.write(key, page.html);
        manifest.push({ key, kind: 'html', url: page.url });
      }
      await storage.write(documentKeys.manifest(documentId), JSON.stringify(manifest));
      if (crawl.skipped.length > 0) logger.info({ documentId, skipped: crawl.skipped }, 'pages skipped while crawling');
      return { sources: crawl.pages.length, skipped: crawl.skipped.length };
    },

    /**
     * Text with its structure (headings, pages, URLs), written as one work file. Extraction runs in a process
     * of its own under the configured caps (text, memory, deadline); a breach fails the document for good.
     */
    async extractDocumentText({ documentId }: { documentId: number }): Promise<{ sections: number; characters: number }> {
      await loadDocument(knex, documentId);
      const manifest = await readJson<ManifestEntry[]>(storage, documentKeys.manifest(documentId));
      const sources: ExtractionSource[] = [];
      for (const entry of manifest) sources.push({ kind: entry.kind, data: await storage.read(entry.key), ...(entry.url !== undefined ? { url: entry.url } : {}) });
      const sections = await heartbeating((signal) => extractIsolated(sources, config.ingestion, signal));
      const characters = sections.reduce((sum, section) => sum + section.text.length, 0);
      if (characters === 0) {
        const what = manifest[0]?.kind === 'html' ? 'the pages' : 'the file';
        throw new RejectedError(`No text could be extracted from ${what}.`);
      }
      await storage.write(documentKeys.sections(documentId), JSON.stringify(sections));
      return { sections: sections.length, characters };
    },

    /**
     * Replaces the document's chunks, cut in a process of its own like the text was extracted (a text at the
     * cap takes about a second of CPU): the old ones go first, then each batch is inserted by a statement of
     * its own, so a retry starts clean and no transaction holds the database (on the embedded PGlite, its
     * only connection, which every request shares) for longer than one batch.
     */
    async chunkDocumentText({ documentId }: { documentId: number }): Promise<{ chunks: number }> {
      const document = await loadDocument(knex, documentId);
      const sections = await readJson<Section[]>(storage, documentKeys.sections(documentId));
      const chunks = await heartbeating((signal) => chunkIsolated(sections, config.ingestion, signal));
      const { maxChunks } = config.ingestion;
      if (chunks.length > maxChunks) {
        throw new RejectedError(`The document makes ${chunks.length} chunks of text; at most ${maxChunks} are stored. Split it into smaller documents.`);
      }
      await knex('document_chunks').where({ documentId }).delete();
      for (let start = 0; start < chunks.length; start += insertBatchSize) {
        await knex('document_chunks').insert(chunks.slice(start, start + insertBatchSize).map((chunk, offset) => ({
          documentId,
          knowledgebaseId: document.knowledgebaseId,
          position: start + offset,
          content: chunk.content,
          metadata: JSON.stringify(chunk.metadata),
          tokenCount: chunk.tokenCount,
        })));
      }
      return { chunks: chunks.length };
    },

    /**
     * Embeds the chunks that have no vector of the configured model yet, a batch per request and a batch
     * per update, so a retry resumes where the last attempt stopped. Without a provider, nothing to do.
     */
    async embedDocumentChunks({ documentId }: { documentId: number }): Promise<{ embedded: number }> {
      await loadDocument(knex, documentId);
      if (!embeddings) return { embedded: 0 };
      return heartbeating(async (signal) => {
        let embedded = 0;
        for (;;) {
          const batch: { id: number; content: string }[] = await knex('document_chunks')
            .where({ documentId })
            .where((query) => query.whereNull('embedding').orWhereNot('embeddingModel', embeddings.model))
            .orderBy('position')
            .limit(embeddings.batchSize)
            .select('id', 'content');
          if (batch.length === 0) return { embedded };
          let vectors: number[][];
          try {
            vectors = await embeddings.embed(batch.map((row) => row.content), { signal });
          } catch (error) {
            if (error instanceof EmbeddingsError && !error.retryable) throw new RejectedError(`Embedding failed: ${error.message}`, { cause: error });
            throw error;
          }
          await knex.raw(
            `update document_chunks as c set embedding = v.embedding::vector, embedding_model = ?
             from (values ${batch.map(() => '(?::bigint, ?)').join(', ')}) as v(id, embedding)
             where c.id = v.id`,
            [embeddings.model, ...batch.flatMap((row, index) => [row.id, pgvector.toSql(vectors[index] ?? [])])],
          );
          embedded += batch.length;
        }
      });
    },

    /** Sets the final status (with the reason of a failure) and the knowledge base's status; drops work files. */
    async finishDocument(input: { documentId: number; status: 'active' | 'failed'; error?: string }): Promise<void> {
      const document = await Document.query(knex).findById(input.documentId);
      if (!document) {
        await storage.deletePrefix(documentKeys.work(input.documentId));
        return;
      }
      await Document.query(knex).findById(input.documentId).patch({ status: input.status, error: input.error ?? null, updatedAt: new Date() });
      if (input.status === 'failed') await knex('document_chunks').where({ documentId: input.documentId }).delete();
      await recomputeKnowledgebaseStatus(knex, document.knowledgebaseId);
      await storage.deletePrefix(documentKeys.work(input.documentId));
    },

    /** After a cancellation (the document was deleted): whatever the interrupted step wrote goes too. */
    async discardDocumentWork({ documentId }: { documentId: number }): Promise<void> {
      await knex('document_chunks').where({ documentId }).delete();
      await storage.deletePrefix(documentKeys.work(documentId));
    },
  };
}
