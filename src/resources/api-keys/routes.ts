import type { Knex } from 'knex';
import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { IdParams, MessageBody } from '../../api/schemas.ts';
import { ApiKeyList, CreateApiKeyBody, CreatedApiKey } from './schemas.ts';
import { apiKeyListItem, createdApiKey } from './serialize.ts';
import { createApiKey, deleteApiKey, listApiKeys } from './service.ts';

export function apiKeyRoutes({ knex }: { knex: Knex }): RouteDefinition[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/user/api-keys',
      tag: 'API keys',
      summary: 'Create an API key (its token is shown once)',
      auth: 'bearer',
      body: CreateApiKeyBody,
      responses: { 201: { description: 'Created', schema: CreatedApiKey } },
      async handle({ auth, body }) {
        const { token, record } = await createApiKey(knex, auth.user.id, body.name.trim());
        return { status: 201, body: { message: 'API key created successfully.', api_key: createdApiKey(record, token) } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/user/api-keys',
      tag: 'API keys',
      summary: "List the caller's API keys (never their tokens)",
      auth: 'bearer',
      responses: { 200: { description: 'The keys', schema: ApiKeyList } },
      async handle({ auth }) {
        return { body: { api_keys: (await listApiKeys(knex, auth.user.id)).map(apiKeyListItem) } };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/user/api-keys/{id}',
      tag: 'API keys',
      summary: 'Delete an API key; it stops working at once',
      auth: 'bearer',
      params: IdParams,
      responses: {
        200: { description: 'Deleted', schema: MessageBody },
        404: { description: 'No such key of the caller', schema: MessageBody },
      },
      async handle({ auth, params }) {
        await deleteApiKey(knex, auth.user.id, params.id);
        return { body: { message: 'API key deleted successfully.' } };
      },
    }),
  ];
}
