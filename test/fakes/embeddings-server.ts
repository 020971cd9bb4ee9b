import { createHash } from 'node:crypto';
import http from 'node:http';
import { listenOnLoopback } from '../support/ports.ts';

/**
 * An OpenAI-compatible `/v1/embeddings` server with deterministic vectors: each word adds weight to a
 * dimension chosen by its hash, then the vector is normalised. Texts sharing words are therefore close,
 * which is enough for tests to see vector search work.
 */
export function fakeEmbedding(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const hash = createHash('sha256').update(word).digest();
    vector[hash.readUInt32BE(0) % dimensions]! += hash[4]! % 2 === 0 ? 1 : -1;
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((value) => value / norm);
}

export interface FakeEmbeddingsServer {
  /** The base URL, ending in /v1. */
  url: string;
  requests: { model: string; inputs: string[]; authorization: string | undefined }[];
  /** The next `count` requests answer this status instead of vectors. */
  failNext(count: number, status: number): void;
  close(): Promise<void>;
}

export async function startFakeEmbeddingsServer(options: { dimensions: number; apiKey?: string }): Promise<FakeEmbeddingsServer> {
  const requests: FakeEmbeddingsServer['requests'] = [];
  let failures = { count: 0, status: 500 };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const reply = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      if (request.method !== 'POST' || request.url !== '/v1/embeddings') return reply(404, { error: { message: 'not found' } });
      if (options.apiKey && request.headers.authorization !== `Bearer ${options.apiKey}`) {
        return reply(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } });
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string; input: string | string[] };
      const inputs = Array.isArray(body.input) ? body.input : [body.input];
      requests.push({ model: body.model, inputs, authorization: request.headers.authorization });
      if (failures.count > 0) {
        failures.count--;
        return reply(failures.status, { error: { message: 'temporarily unavailable' } });
      }
      return reply(200, {
        object: 'list',
        model: body.model,
        data: inputs.map((input, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(input, options.dimensions) })),
        usage: { prompt_tokens: inputs.join(' ').split(/\s+/).length, total_tokens: inputs.join(' ').split(/\s+/).length },
      });
    });
  });
  const { url, close } = await listenOnLoopback(server);
  return {
    url: `${url}/v1`,
    requests,
    failNext(count, status) {
      failures = { count, status };
    },
    close,
  };
}
