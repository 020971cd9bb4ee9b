/** Turns texts into vectors of a fixed dimension; one call may carry a batch of texts. */
export interface EmbeddingsProvider {
  /** Stored beside each vector so vectors of another model are never compared with this one's. */
  readonly model: string;
  readonly dimensions: number;
  /** Texts per request the service accepts; callers split larger lists. */
  readonly batchSize: number;
  /** One vector per text, in the order of the texts. */
  embed(texts: string[], options?: { signal?: AbortSignal }): Promise<number[][]>;
}

export class EmbeddingsError extends Error {
  override name = 'EmbeddingsError';
  /** Whether trying again may help (rate limits, server errors, network), as opposed to a bad request. */
  readonly retryable: boolean;
  constructor(message: string, retryable: boolean) {
    super(message);
    this.retryable = retryable;
  }
}
