import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { IdParams, MessageBody } from '../../api/schemas.ts';
import { lengthAwarePage } from '../../lib/pagination.ts';
import { BadgeListQuery } from '../folders/schemas.ts';
import { CreateLabelBody, LabelEnvelope, LabelItem, LabelPage, UpdateLabelBody } from './schemas.ts';
import { labelItem } from './serialize.ts';
import { createLabel, deleteLabel, getLabel, listLabels, updateLabel, type LabelDeps } from './service.ts';

export interface LabelRouteDeps extends LabelDeps {
  /** Base URL of the API's clients, for page links. */
  publicUrl: string;
}

const TAG = 'Labels';
const notFound = { description: 'No such label of the caller', schema: MessageBody };

/**
 * The label routes. The docs write to `/user/label[/{id}]`; integrations (the Famulor MCP client) write to
 * `/user/labels[/{id}]`: both spellings are served alike.
 */
export function labelRoutes(deps: LabelRouteDeps): RouteDefinition[] {
  const create = (path: string, summary: string) => defineRoute({
    method: 'POST',
    path,
    tag: TAG,
    summary,
    auth: 'bearer',
    body: CreateLabelBody,
    responses: { 201: { description: 'Created', schema: LabelEnvelope('Label created successfully') } },
    async handle({ auth, body }) {
      const label = await createLabel(deps, auth.user.id, body);
      return { status: 201, body: { message: 'Label created successfully', data: labelItem(label) } };
    },
  });

  const item = (base: string, alias: string) => [
    defineRoute({
      method: 'GET',
      path: `${base}/{id}`,
      tag: TAG,
      summary: `Get one label (the object itself)${alias}`,
      auth: 'bearer',
      params: IdParams,
      responses: { 200: { description: 'The label', schema: LabelItem }, 404: notFound },
      async handle({ auth, params }) {
        return { body: labelItem(await getLabel(deps, auth.user.id, params.id)) };
      },
    }),
    defineRoute({
      method: 'PUT',
      path: `${base}/{id}`,
      tag: TAG,
      summary: `Rename a label or change its colour (partial; null clears the colour)${alias}`,
      auth: 'bearer',
      params: IdParams,
      body: UpdateLabelBody,
      responses: { 200: { description: 'Updated', schema: LabelEnvelope('Label updated successfully') }, 404: notFound },
      async handle({ auth, params, body }) {
        const label = await updateLabel(deps, auth.user.id, params.id, body);
        return { body: { message: 'Label updated successfully', data: labelItem(label) } };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: `${base}/{id}`,
      tag: TAG,
      summary: `Delete a label; it is removed from its assistants, which stay${alias}`,
      auth: 'bearer',
      params: IdParams,
      responses: { 200: { description: 'Deleted', schema: MessageBody }, 404: notFound },
      async handle({ auth, params }) {
        await deleteLabel(deps, auth.user.id, params.id);
        return { body: { message: 'Label deleted successfully' } };
      },
    }),
  ];

  return [
    defineRoute({
      method: 'GET',
      path: '/user/labels',
      tag: TAG,
      summary: "List the caller's labels with the count of assistants each is applied to, paginated",
      auth: 'bearer',
      query: BadgeListQuery,
      responses: { 200: { description: 'A page of labels', schema: LabelPage } },
      async handle({ auth, query, ctx }) {
        const page = { page: query.page ?? 1, perPage: query.per_page ?? 15 };
        const { labels, total } = await listLabels(deps, auth.user.id, page);
        return {
          body: lengthAwarePage({ data: labels.map(labelItem), total, page, path: `${deps.publicUrl}/api/user/labels`, query: ctx.query }),
        };
      },
    }),
    create('/user/label', 'Create a label'),
    create('/user/labels', 'Create a label (same as POST /user/label)'),
    ...item('/user/label', ''),
    ...item('/user/labels', ' (same as the singular path)'),
  ];
}
