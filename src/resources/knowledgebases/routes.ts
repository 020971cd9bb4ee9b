import type { Knex } from 'knex';
import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { ErrorBody, MessageBody } from '../../api/schemas.ts';
import type { EmbeddingsProvider } from '../../providers/embeddings/index.ts';
import type { FileStorage } from '../../providers/storage/index.ts';
import type { TemporalClient } from '../../temporal/client.ts';
import { searchKnowledgebase } from '../../knowledge/retrieval.ts';
import {
  CreateKnowledgebaseBody,
  KnowledgebaseCreated,
  KnowledgebaseList,
  KnowledgebaseParams,
  KnowledgebaseShow,
  KnowledgebaseUpdated,
  SearchBody,
  SearchResults,
  UpdateKnowledgebaseBody,
} from './schemas.ts';
import { createdKnowledgebase, knowledgebaseItem, updatedKnowledgebase } from './serialize.ts';
import {
  createKnowledgebase,
  deleteKnowledgebase,
  findOwnedKnowledgebase,
  getKnowledgebase,
  listKnowledgebases,
  updateKnowledgebase,
} from './service.ts';

export interface KnowledgebaseRouteDeps {
  knex: Knex;
  temporal: TemporalClient;
  storage: FileStorage;
  embeddings: EmbeddingsProvider | undefined;
}

const notFound = { description: 'No such knowledge base of the caller', schema: ErrorBody };

export function knowledgebaseRoutes(deps: KnowledgebaseRouteDeps): RouteDefinition[] {
  const { knex } = deps;
  const common = { tag: 'Knowledge bases', auth: 'bearer' as const, errorStyle: 'error' as const };
  return [
    defineRoute({
      ...common,
      method: 'GET',
      path: '/user/knowledgebases',
      summary: "List the caller's knowledge bases with their document and assistant counts",
      responses: { 200: { description: 'The knowledge bases', schema: KnowledgebaseList } },
      async handle({ auth }) {
        return { body: { data: (await listKnowledgebases(knex, auth.user.id)).map(knowledgebaseItem) } };
      },
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: '/user/knowledgebases',
      summary: 'Create a knowledge base (status empty until documents are added)',
      body: CreateKnowledgebaseBody,
      failureText: 'Failed to create knowledgebase. Please try again.',
      responses: { 201: { description: 'Created', schema: KnowledgebaseCreated } },
      errors: ['plan_limit'],
      async handle({ auth, body }) {
        const record = await createKnowledgebase(knex, auth.user, body);
        return { status: 201, body: { message: 'Knowledgebase created successfully.', data: createdKnowledgebase(record) } };
      },
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: '/user/knowledgebases/{id}',
      summary: 'Get one knowledge base',
      params: KnowledgebaseParams,
      responses: { 200: { description: 'The knowledge base', schema: KnowledgebaseShow }, 404: notFound },
      async handle({ auth, params }) {
        return { body: { data: knowledgebaseItem(await getKnowledgebase(knex, auth.user.id, params.id)) } };
      },
    }),
    defineRoute({
      ...common,
      method: 'PUT',
      path: '/user/knowledgebases/{id}',
      summary: 'Rename a knowledge base or change its description',
      params: KnowledgebaseParams,
      body: UpdateKnowledgebaseBody,
      responses: { 200: { description: 'Updated', schema: KnowledgebaseUpdated }, 404: notFound },
      async handle({ auth, params, body }) {
        const record = await updateKnowledgebase(knex, auth.user.id, params.id, body);
        return { body: { message: 'Knowledgebase updated successfully.', data: updatedKnowledgebase(record) } };
      },
    }),
    defineRoute({
      ...common,
      method: 'DELETE',
      path: '/user/knowledgebases/{id}',
      summary: 'Delete a knowledge base, its documents and embeddings; assistants using it are detached',
      params: KnowledgebaseParams,
      responses: { 200: { description: 'Deleted', schema: MessageBody }, 404: notFound },
      async handle({ auth, params }) {
        await deleteKnowledgebase(deps, auth.user.id, params.id);
        return { body: { message: 'Knowledgebase deleted successfully.' } };
      },
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: '/user/knowledgebases/{id}/search',
      summary: 'Search a knowledge base as an assistant does: the best chunks with their document and score',
      description:
        'Hybrid retrieval: full-text rank and vector similarity fused by reciprocal rank fusion. Without an ' +
        'embeddings provider (EMBEDDINGS_BASE_URL) the search uses full text alone and `mode` says `full_text`.',
      params: KnowledgebaseParams,
      body: SearchBody,
      responses: { 200: { description: 'The best chunks, best first', schema: SearchResults }, 404: notFound },
      async handle({ auth, params, body }) {
        await findOwnedKnowledgebase(knex, auth.user.id, params.id);
        const result = await searchKnowledgebase(
          { knex, embeddings: deps.embeddings },
          { userId: auth.user.id, knowledgebaseId: params.id, query: body.query, topK: body.top_k ?? 5 },
        );
        return {
          body: {
            mode: result.mode,
            data: result.chunks.map((chunk) => ({
              chunk_id: chunk.chunkId,
              document_id: chunk.documentId,
              document_name: chunk.documentName,
              score: chunk.score,
              text: chunk.text,
              metadata: chunk.metadata,
            })),
          },
        };
      },
    }),
  ];
}
