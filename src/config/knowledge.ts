import { ConfigError } from './error.ts';
import type { Reader } from './reader.ts';

/** An OpenAI-compatible `/v1/embeddings` service; `undefined` means retrieval uses full text alone. */
export type EmbeddingsConfig = {
  baseUrl: string;
  model: string;
  dimensions: number;
  apiKey: string | undefined;
  batchSize: number;
} | undefined;

/** Bounds on one document's ingestion, so a hostile or huge file fails alone instead of starving the service. */
export interface IngestionConfig {
  /** Characters of extracted text beyond which a document fails (docs/decisions.md: fail, never truncate). */
  maxCharacters: number;
  /** Chunks beyond which a document fails. */
  maxChunks: number;
  /** How long text extraction, or chunking (each in a process of its own), may run before the document fails. */
  extractTimeoutMs: number;
  /** The heap of each of those processes; a file that needs more fails. */
  extractMemoryMb: number;
}

// The extraction and chunking activities' start-to-close timeout (workflows/document-ingestion.ts) is 10
// minutes: the deadline stays well inside it, so a slow file ends with the deadline's reason, never a
// timed-out retry.
const maxExtractTimeoutSeconds = 5 * 60;

export function readIngestion(read: Reader): IngestionConfig {
  const timeoutSeconds = read.duration('INGEST_EXTRACT_TIMEOUT', 120);
  if (timeoutSeconds > maxExtractTimeoutSeconds) throw new ConfigError('INGEST_EXTRACT_TIMEOUT', `must be at most ${maxExtractTimeoutSeconds / 60}m, got ${timeoutSeconds}s.`);
  return {
    maxCharacters: read.integer('INGEST_MAX_CHARACTERS', 5_000_000, 1000, 100_000_000),
    maxChunks: read.integer('INGEST_MAX_CHUNKS', 10_000, 1, 1_000_000),
    extractTimeoutMs: timeoutSeconds * 1000,
    extractMemoryMb: read.integer('INGEST_EXTRACT_MEMORY_MB', 512, 64, 16_384),
  };
}

export function readEmbeddings(read: Reader): EmbeddingsConfig {
  const baseUrl = read.url('EMBEDDINGS_BASE_URL', ['http:', 'https:']);
  if (baseUrl === undefined) return undefined;
  const model = read.string('EMBEDDINGS_MODEL');
  if (model === undefined) throw new ConfigError('EMBEDDINGS_MODEL', 'is required when EMBEDDINGS_BASE_URL is set.');
  if (read.string('EMBEDDINGS_DIMENSIONS') === undefined) throw new ConfigError('EMBEDDINGS_DIMENSIONS', 'is required when EMBEDDINGS_BASE_URL is set.');
  return {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    model,
    // pgvector indexes a `vector` of at most 2000 dimensions.
    dimensions: read.integer('EMBEDDINGS_DIMENSIONS', 0, 1, 2000),
    apiKey: read.string('EMBEDDINGS_API_KEY'),
    batchSize: read.integer('EMBEDDINGS_BATCH_SIZE', 64, 1, 2048),
  };
}
