import type { Config } from '../../config.ts';
import { EmbeddingsError, type EmbeddingsProvider } from './types.ts';

interface EmbeddingsResponse {
  data?: { index?: number; embedding?: unknown }[];
}

/**
 * The `/v1/embeddings` protocol spoken by OpenAI, Ollama, vLLM and Hugging Face TEI. `baseUrl` is the part
 * before `/embeddings` (for OpenAI `https://api.openai.com/v1`). The configured endpoint is the operator's,
 * not a user's, so it is called directly rather than through the guarded client: it may well be a local
 * Ollama.
 */
export function createOpenAiCompatibleEmbeddings(settings: NonNullable<Config['embeddings']>): EmbeddingsProvider {
  const endpoint = `${settings.baseUrl}/embeddings`;
  return {
    model: settings.model,
    dimensions: settings.dimensions,
    batchSize: settings.batchSize,
    async embed(texts, options = {}) {
      if (texts.length === 0) return [];
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
      const signal = options.signal ? AbortSignal.any([options.signal, AbortSignal.timeout(60_000)]) : AbortSignal.timeout(60_000);
      let response: Response;
      try {
        response = await fetch(endpoint, {
          method: 'POST',
          headers,
          body: JSON.stringify({ model: settings.model, input: texts, encoding_format: 'float' }),
          signal,
        });
      } catch (error) {
        throw new EmbeddingsError(`The embeddings service at ${endpoint} could not be reached: ${(error as Error).message}`, true);
      }
      if (!response.ok) {
        const detail = (await response.text()).slice(0, 300);
        throw new EmbeddingsError(
          `The embeddings service answered ${response.status}: ${detail}`,
          response.status === 429 || response.status >= 500,
        );
      }
      const body = await response.json() as EmbeddingsResponse;
      const items = body.data ?? [];
      if (items.length !== texts.length) {
        throw new EmbeddingsError(`The embeddings service returned ${items.length} vectors for ${texts.length} texts.`, false);
      }
      const vectors: number[][] = new Array<number[]>(texts.length);
      items.forEach((item, position) => {
        const vector = item.embedding;
        if (!Array.isArray(vector) || !vector.every((value) => typeof value === 'number' && Number.isFinite(value))) {
          throw new EmbeddingsError('The embeddings service returned something that is not a vector of numbers.', false);
        }
        if (vector.length !== settings.dimensions) {
          throw new EmbeddingsError(
            `The model ${settings.model} returned ${vector.length} dimensions but EMBEDDINGS_DIMENSIONS is ${settings.dimensions}.`,
            false,
          );
        }
        vectors[item.index ?? position] = vector as number[];
      });
      return vectors;
    },
  };
}
