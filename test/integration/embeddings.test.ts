import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAiCompatibleEmbeddings } from '../../src/providers/embeddings/openai-compatible.ts';
import { EmbeddingsError } from '../../src/providers/embeddings/index.ts';
import { searchKnowledgebase } from '../../src/knowledge/retrieval.ts';
import { fakeEmbedding, startFakeEmbeddingsServer, type FakeEmbeddingsServer } from '../fakes/embeddings-server.ts';
import { uploadDocument, waitForDocument } from '../support/documents.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser } from '../support/users.ts';

let fake: FakeEmbeddingsServer;
beforeAll(async () => {
  fake = await startFakeEmbeddingsServer({ dimensions: 384, apiKey: 'sk-test' });
});
afterAll(() => fake?.close());

describe('the OpenAI-compatible embeddings client', () => {
  const settings = () => ({ baseUrl: fake.url, model: 'fake-embed', dimensions: 384, apiKey: 'sk-test', batchSize: 2 });

  it('sends the model and a batch of inputs with the key, and returns one vector per text in order', async () => {
    const client = createOpenAiCompatibleEmbeddings(settings());
    const vectors = await client.embed(['alpha beta', 'gamma']);
    expect(vectors).toEqual([fakeEmbedding('alpha beta', 384), fakeEmbedding('gamma', 384)]);
    expect(fake.requests.at(-1)).toEqual({ model: 'fake-embed', inputs: ['alpha beta', 'gamma'], authorization: 'Bearer sk-test' });
  });

  it('says whether an error is worth retrying', async () => {
    fake.failNext(1, 503);
    const unavailable = await createOpenAiCompatibleEmbeddings(settings()).embed(['x']).catch((error: unknown) => error);
    expect(unavailable).toBeInstanceOf(EmbeddingsError);
    expect(unavailable).toMatchObject({ retryable: true });
    const badKey = await createOpenAiCompatibleEmbeddings({ ...settings(), apiKey: 'wrong' }).embed(['x']).catch((error: unknown) => error);
    expect(badKey).toMatchObject({ retryable: false, message: expect.stringContaining('answered 401') });
    const wrongSize = await createOpenAiCompatibleEmbeddings({ ...settings(), dimensions: 768 }).embed(['x']).catch((error: unknown) => error);
    expect(wrongSize).toMatchObject({ retryable: false, message: 'The model fake-embed returned 384 dimensions but EMBEDDINGS_DIMENSIONS is 768.' });
  });
});

describe('hybrid retrieval with an embeddings provider', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform({
      worker: true,
      env: {
        EMBEDDINGS_BASE_URL: fake.url,
        EMBEDDINGS_MODEL: 'fake-embed',
        EMBEDDINGS_DIMENSIONS: '384',
        EMBEDDINGS_API_KEY: 'sk-test',
        EMBEDDINGS_BATCH_SIZE: '3',
      },
    });
  });
  afterAll(async () => {
    await platform?.close();
  });

  it('embeds every chunk in batches, then fuses full-text and vector rankings', async () => {
    const user = await createTestUser(platform.database.knex);
    const kb = (await platform.request('POST', '/user/knowledgebases', { token: user.token, body: { name: 'Hybrid' } })).body.data.id as number;
    const topics = ['volcanoes erupt molten lava', 'glaciers carve valleys slowly', 'coral reefs shelter fish', 'deserts receive little rain',
      'rainforests hold many species', 'tides follow the moon', 'earthquakes shake faults'];
    const text = topics.map((topic, index) => `Section ${index}. ${topic}. ${'filler words about geography '.repeat(90)}`).join('\n\n');
    const requestsBefore = fake.requests.length;
    const doc = await uploadDocument(platform, user.token, kb, { name: 'Geography', type: 'txt' }, { name: 'g.txt', data: Buffer.from(text) });
    expect(await waitForDocument(platform, user.token, kb, doc.body.data.id)).toMatchObject({ status: 'active' });

    const chunks = await platform.database.knex('document_chunks').where({ documentId: doc.body.data.id })
      .select('embeddingModel', platform.database.knex.raw('vector_dims(embedding) as dims'));
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.every((chunk: { embeddingModel: string; dims: number }) => chunk.embeddingModel === 'fake-embed' && chunk.dims === 384)).toBe(true);
    const batches = fake.requests.slice(requestsBefore).map((request) => request.inputs.length);
    expect(Math.max(...batches)).toBeLessThanOrEqual(3);
    expect(batches.reduce((sum, size) => sum + size, 0)).toBe(chunks.length);

    const response = await platform.request('POST', `/user/knowledgebases/${kb}/search`, { token: user.token, body: { query: 'coral reefs fish', top_k: 3 } });
    expect(response.status).toBe(200);
    expect(response.body.mode).toBe('hybrid');
    expect(response.body.data).toHaveLength(3);
    expect(response.body.data[0]).toMatchObject({ document_id: doc.body.data.id, document_name: 'Geography', text: expect.stringContaining('coral reefs shelter fish') });
    // First in both rankings: 1/(60+1) + 1/(60+1).
    expect(response.body.data[0].score).toBeCloseTo(2 / 61, 6);
    expect(fake.requests.at(-1)?.inputs).toEqual(['coral reefs fish']);

    // The same function the assistant calls; another user's knowledge base is empty to it.
    const stranger = await createTestUser(platform.database.knex);
    const { createEmbeddingsProvider } = await import('../../src/providers/embeddings/index.ts');
    const deps = { knex: platform.database.knex, embeddings: createEmbeddingsProvider(platform.config) };
    expect((await searchKnowledgebase(deps, { userId: stranger.id, knowledgebaseId: kb, query: 'coral', topK: 5 })).chunks).toEqual([]);
    const exact = await searchKnowledgebase(deps, { userId: user.id, knowledgebaseId: kb, query: 'coral reefs fish', topK: 3, exact: true });
    expect(exact.chunks.map((chunk) => chunk.chunkId)).toEqual((response.body.data as { chunk_id: number }[]).map((hit) => hit.chunk_id));
  });

  it('reports the embeddings provider in GET /api/ready as information', async () => {
    const ready = await platform.request('GET', '/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.checks.embeddings).toBe(`configured: fake-embed (384 dimensions) at ${new URL(fake.url).host}`);
  });
});

describe('without an embeddings provider', () => {
  it('stays ready and says that search uses full text only', async () => {
    const platform = await startTestPlatform();
    try {
      const ready = await platform.request('GET', '/ready');
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({
        status: 'ok',
        checks: { database: 'ok', temporal: 'ok', embeddings: 'not configured: knowledge base search uses full text only' },
      });
    } finally {
      await platform.close();
    }
  });
});
