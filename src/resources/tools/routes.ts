import { Type } from '@sinclair/typebox';
import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { IdParams, MessageBody, ValidationErrorBody } from '../../api/schemas.ts';
import { CreateToolBody, Tool, ToolEnvelope, UpdateToolBody } from './schemas.ts';
import { toolResponse } from './serialize.ts';
import { createTool, deleteTool, getTool, listTools, updateTool, type ToolDeps, type ToolView } from './service.ts';

const respond = ({ tool, headers }: ToolView) => toolResponse(tool, headers);

export function toolRoutes(deps: ToolDeps): RouteDefinition[] {
  const update = (method: 'PUT' | 'PATCH') => defineRoute({
    method,
    path: '/user/tools/{id}',
    tag: 'Mid-call tools',
    summary: method === 'PUT' ? 'Update a tool (partial; headers and schema, when sent, replace the stored lists)' : 'Update a tool (same as PUT)',
    auth: 'bearer',
    params: IdParams,
    body: UpdateToolBody,
    responses: {
      200: { description: 'Updated', schema: ToolEnvelope('Tool updated successfully') },
      404: { description: 'No such tool of the caller', schema: MessageBody },
    },
    async handle({ auth, params, body }) {
      const updated = await updateTool(deps, auth.user.id, params.id, body);
      return { body: { message: 'Tool updated successfully', data: respond(updated) } };
    },
  });

  return [
    defineRoute({
      method: 'POST',
      path: '/user/tools',
      tag: 'Mid-call tools',
      summary: 'Create a mid-call HTTP tool (within the plan limit)',
      description: 'Header values are encrypted at rest and sent with every call of the tool.',
      auth: 'bearer',
      body: CreateToolBody,
      responses: {
        201: { description: 'Created', schema: ToolEnvelope('Tool created successfully') },
        422: { description: 'Validation failed, or the plan limit of mid call tools is reached (`{message}` only)', schema: Type.Union([ValidationErrorBody, MessageBody]) },
      },
      async handle({ auth, body }) {
        const created = await createTool(deps, auth.user.id, body);
        return { status: 201, body: { message: 'Tool created successfully', data: respond(created) } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/user/tools',
      tag: 'Mid-call tools',
      summary: "List the caller's tools (a bare array)",
      auth: 'bearer',
      responses: { 200: { description: 'The tools', schema: Type.Array(Tool) } },
      async handle({ auth }) {
        return { body: (await listTools(deps, auth.user.id)).map(respond) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/user/tools/{id}',
      tag: 'Mid-call tools',
      summary: 'Get one tool (the object itself, not wrapped)',
      auth: 'bearer',
      params: IdParams,
      responses: {
        200: { description: 'The tool', schema: Tool },
        404: { description: 'No such tool of the caller', schema: MessageBody },
      },
      async handle({ auth, params }) {
        return { body: respond(await getTool(deps, auth.user.id, params.id)) };
      },
    }),
    update('PUT'),
    update('PATCH'),
    defineRoute({
      method: 'DELETE',
      path: '/user/tools/{id}',
      tag: 'Mid-call tools',
      summary: 'Delete a tool; it is detached from every assistant',
      auth: 'bearer',
      params: IdParams,
      responses: {
        200: { description: 'Deleted', schema: MessageBody },
        404: { description: 'No such tool of the caller', schema: MessageBody },
      },
      async handle({ auth, params }) {
        await deleteTool(deps, auth.user.id, params.id);
        return { body: { message: 'Tool deleted successfully' } };
      },
    }),
  ];
}
