import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { IdParams, MessageBody } from '../../api/schemas.ts';
import { lengthAwarePage } from '../../lib/pagination.ts';
import { capitalized, type BadgeKind } from './kind.ts';
import { BadgeListQuery, badgeResponseSchemas, CreateBadgeBody, UpdateBadgeBody } from './schemas.ts';
import { badgeItem } from './serialize.ts';
import { badgeService, type BadgeDeps } from './service.ts';

export interface BadgeRouteDeps extends BadgeDeps {
  /** Base URL of the API's clients, for page links. */
  publicUrl: string;
}

/**
 * The routes of one kind of badge. The docs write to `/user/<noun>[/{id}]`; integrations (the Famulor MCP client)
 * write to `/user/<noun>s[/{id}]`: both spellings are served alike. The list is at the plural path only.
 */
export function badgeRoutes(kind: BadgeKind, deps: BadgeRouteDeps): RouteDefinition[] {
  const { noun, texts } = kind;
  const Noun = capitalized(noun);
  const plural = `${noun}s`;
  const tag = capitalized(plural);
  const service = badgeService(kind);
  const schemas = badgeResponseSchemas(Noun, texts.countDescription);
  const notFound = { description: `No such ${noun} of the caller`, schema: MessageBody };
  const created = `${Noun} created successfully`;
  const updated = `${Noun} updated successfully`;

  const create = (path: string, summary: string) => defineRoute({
    method: 'POST',
    path,
    tag,
    summary,
    auth: 'bearer',
    body: CreateBadgeBody,
    responses: { 201: { description: 'Created', schema: schemas.Envelope(created) } },
    async handle({ auth, body }) {
      const badge = await service.create(deps, auth.user.id, body);
      return { status: 201, body: { message: created, data: badgeItem(badge) } };
    },
  });

  const item = (base: string, alias: string) => [
    defineRoute({
      method: 'GET',
      path: `${base}/{id}`,
      tag,
      summary: `Get one ${noun} (the object itself)${alias}`,
      auth: 'bearer',
      params: IdParams,
      responses: { 200: { description: `The ${noun}`, schema: schemas.Item }, 404: notFound },
      async handle({ auth, params }) {
        return { body: badgeItem(await service.get(deps, auth.user.id, params.id)) };
      },
    }),
    defineRoute({
      method: 'PUT',
      path: `${base}/{id}`,
      tag,
      summary: `Rename a ${noun} or change its colour (partial; null clears the colour)${alias}`,
      auth: 'bearer',
      params: IdParams,
      body: UpdateBadgeBody,
      responses: { 200: { description: 'Updated', schema: schemas.Envelope(updated) }, 404: notFound },
      async handle({ auth, params, body }) {
        const badge = await service.update(deps, auth.user.id, params.id, body);
        return { body: { message: updated, data: badgeItem(badge) } };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: `${base}/{id}`,
      tag,
      summary: `${texts.deleteSummary}${alias}`,
      auth: 'bearer',
      params: IdParams,
      responses: { 200: { description: 'Deleted', schema: MessageBody }, 404: notFound },
      async handle({ auth, params }) {
        await service.remove(deps, auth.user.id, params.id);
        return { body: { message: `${Noun} deleted successfully` } };
      },
    }),
  ];

  return [
    defineRoute({
      method: 'GET',
      path: `/user/${plural}`,
      tag,
      summary: texts.listSummary,
      auth: 'bearer',
      query: BadgeListQuery,
      responses: { 200: { description: `A page of ${plural}`, schema: schemas.Page } },
      async handle({ auth, query, ctx }) {
        const page = { page: query.page ?? 1, perPage: query.per_page ?? 15 };
        const { badges, total } = await service.list(deps, auth.user.id, page);
        return {
          body: lengthAwarePage({ data: badges.map(badgeItem), total, page, path: `${deps.publicUrl}/api/user/${plural}`, query: ctx.query }),
        };
      },
    }),
    create(`/user/${noun}`, `Create a ${noun}`),
    create(`/user/${plural}`, `Create a ${noun} (same as POST /user/${noun})`),
    ...item(`/user/${noun}`, ''),
    ...item(`/user/${plural}`, ' (same as the singular path)'),
  ];
}
