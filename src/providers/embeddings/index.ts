import type { Config } from '../../config.ts';
import { createOpenAiCompatibleEmbeddings } from './openai-compatible.ts';
import type { EmbeddingsProvider } from './types.ts';

export { EmbeddingsError, type EmbeddingsProvider } from './types.ts';

/** The configured provider, or `undefined` when none is: retrieval then uses full-text search alone. */
export function createEmbeddingsProvider(config: Pick<Config, 'embeddings'>): EmbeddingsProvider | undefined {
  return config.embeddings ? createOpenAiCompatibleEmbeddings(config.embeddings) : undefined;
}

/** What `GET /api/ready` says about embeddings; informational, never a reason to be unready. */
export function describeEmbeddings(config: Pick<Config, 'embeddings'>): string {
  const embeddings = config.embeddings;
  if (!embeddings) return 'not configured: knowledge base search uses full text only';
  return `configured: ${embeddings.model} (${embeddings.dimensions} dimensions) at ${new URL(embeddings.baseUrl).host}`;
}
