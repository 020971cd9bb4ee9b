import { Type } from '@sinclair/typebox';
import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { IdParams, MessageBody } from '../../api/schemas.ts';
import { lengthAwarePage } from '../../lib/pagination.ts';
import type { SecretBox } from '../../lib/secrets.ts';
import type { Knex } from 'knex';
import { AssistantEnvelope, AssistantItem, AssistantPage, OutboundItem } from './responses.ts';
import { CreateAssistantBody, FilterQuery, ListQuery, UpdateAssistantBody } from './schemas.ts';
import { assistantItem, assistantSummary, outboundItem, type AssistantExtras } from './serialize.ts';
import type { OfferedSpeech } from '../catalogs/service.ts';
import { assistantWebhookRoutes } from './webhook-routes.ts';
import {
  allAssistants, createAssistant, deleteAssistant, getAssistant, listAssistants, outboundAssistants, updateAssistant,
} from './service.ts';

export interface AssistantRouteDeps {
  knex: Knex;
  secrets: SecretBox;
  /** Base URL of the API's clients, for page links. */
  publicUrl: string;
  /** What this deployment hears and speaks (an assistant in a language it cannot serve is refused). */
  offered?: OfferedSpeech;
}

const TAG = 'Assistants';
const notFound = { description: 'No such assistant of the caller', schema: MessageBody };

export function assistantRoutes(deps: AssistantRouteDeps): RouteDefinition[] {
  const create = (path: string, summary: string) => defineRoute({
    method: 'POST',
    path,
    tag: TAG,
    summary,
    auth: 'bearer',
    body: CreateAssistantBody,
    failureText: 'Assistant creation failed',
    responses: { 201: { description: 'Created', schema: AssistantEnvelope('Assistant created successfully') } },
    async handle({ auth, body }) {
      const assistant = await createAssistant(deps, auth.user.id, body);
      return { status: 201, body: { message: 'Assistant created successfully', data: assistantSummary(assistant) } };
    },
  });
  const item = (row: Parameters<typeof assistantItem>[0], extras: AssistantExtras) => assistantItem(row, extras, deps.secrets);

  return [
    create('/user/assistant', 'Create an assistant (current or legacy body)'),
    create('/user/assistants', 'Create an assistant (same as POST /user/assistant)'),
    defineRoute({
      method: 'GET',
      path: '/user/assistants/get',
      tag: TAG,
      summary: "List the caller's assistants, paginated; filtered by folder or label",
      auth: 'bearer',
      query: ListQuery,
      responses: { 200: { description: 'A page of assistants', schema: AssistantPage } },
      async handle({ auth, query, ctx }) {
        const page = { page: query.page ?? 1, perPage: query.per_page ?? 10 };
        const { assistants, extras, total } = await listAssistants(deps, auth.user.id, page, { folderId: query.folder_id, labelId: query.label_id });
        return {
          body: lengthAwarePage({
            data: assistants.map((assistant) => item(assistant, extras.get(assistant.id) as AssistantExtras)),
            total,
            page,
            path: `${deps.publicUrl}/api/user/assistants/get`,
            query: ctx.query,
          }),
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/user/assistants',
      tag: TAG,
      summary: "All of the caller's assistants (a bare array of the list's items, by id); filtered by folder or label",
      auth: 'bearer',
      query: FilterQuery,
      responses: { 200: { description: 'The assistants', schema: Type.Array(AssistantItem) } },
      async handle({ auth, query }) {
        const { assistants, extras } = await allAssistants(deps, auth.user.id, { folderId: query.folder_id, labelId: query.label_id });
        return { body: assistants.map((assistant) => item(assistant, extras.get(assistant.id) as AssistantExtras)) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/user/assistants/outbound',
      tag: TAG,
      summary: "The caller's outbound assistants (a bare array)",
      auth: 'bearer',
      responses: { 200: { description: 'The outbound assistants', schema: Type.Array(OutboundItem) } },
      async handle({ auth }) {
        return { body: (await outboundAssistants(deps, auth.user.id)).map(outboundItem) };
      },
    }),
    ...assistantWebhookRoutes(deps),
    defineRoute({
      method: 'GET',
      path: '/user/assistant/{id}',
      tag: TAG,
      summary: 'Get one assistant (the object itself, as in the list)',
      auth: 'bearer',
      params: IdParams,
      responses: { 200: { description: 'The assistant', schema: AssistantItem }, 404: notFound },
      async handle({ auth, params }) {
        const { assistant, extras } = await getAssistant(deps, auth.user.id, params.id);
        return { body: item(assistant, extras) };
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/user/assistant/{id}',
      tag: TAG,
      summary: 'Update an assistant (partial; arrays and objects are replaced whole, null clears)',
      auth: 'bearer',
      params: IdParams,
      body: UpdateAssistantBody,
      responses: { 200: { description: 'Updated', schema: AssistantEnvelope('Assistant updated successfully') }, 404: notFound },
      async handle({ auth, params, body }) {
        const assistant = await updateAssistant(deps, auth.user.id, params.id, body);
        return { body: { message: 'Assistant updated successfully', data: assistantSummary(assistant) } };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/user/assistant/{id}',
      tag: TAG,
      summary: 'Delete an assistant',
      auth: 'bearer',
      params: IdParams,
      responses: { 200: { description: 'Deleted', schema: MessageBody }, 404: notFound },
      async handle({ auth, params }) {
        await deleteAssistant(deps, auth.user.id, params.id);
        return { body: { message: 'Assistant deleted successfully' } };
      },
    }),
  ];
}
