import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { IdParams, MessageBody } from '../../api/schemas.ts';
import { lengthAwarePage } from '../../lib/pagination.ts';
import { BadgeListQuery, CreateFolderBody, FolderEnvelope, FolderItem, FolderPage, UpdateFolderBody } from './schemas.ts';
import { folderItem } from './serialize.ts';
import { createFolder, deleteFolder, getFolder, listFolders, updateFolder, type FolderDeps } from './service.ts';

export interface FolderRouteDeps extends FolderDeps {
  /** Base URL of the API's clients, for page links. */
  publicUrl: string;
}

const TAG = 'Folders';
const notFound = { description: 'No such folder of the caller', schema: MessageBody };

/**
 * The folder routes. The docs write to `/user/folder[/{id}]`; integrations (the Famulor MCP client) write to
 * `/user/folders[/{id}]`: both spellings are served alike.
 */
export function folderRoutes(deps: FolderRouteDeps): RouteDefinition[] {
  const create = (path: string, summary: string) => defineRoute({
    method: 'POST',
    path,
    tag: TAG,
    summary,
    auth: 'bearer',
    body: CreateFolderBody,
    responses: { 201: { description: 'Created', schema: FolderEnvelope('Folder created successfully') } },
    async handle({ auth, body }) {
      const folder = await createFolder(deps, auth.user.id, body);
      return { status: 201, body: { message: 'Folder created successfully', data: folderItem(folder) } };
    },
  });

  const item = (base: string, alias: string) => [
    defineRoute({
      method: 'GET',
      path: `${base}/{id}`,
      tag: TAG,
      summary: `Get one folder (the object itself)${alias}`,
      auth: 'bearer',
      params: IdParams,
      responses: { 200: { description: 'The folder', schema: FolderItem }, 404: notFound },
      async handle({ auth, params }) {
        return { body: folderItem(await getFolder(deps, auth.user.id, params.id)) };
      },
    }),
    defineRoute({
      method: 'PUT',
      path: `${base}/{id}`,
      tag: TAG,
      summary: `Rename a folder or change its colour (partial; null clears the colour)${alias}`,
      auth: 'bearer',
      params: IdParams,
      body: UpdateFolderBody,
      responses: { 200: { description: 'Updated', schema: FolderEnvelope('Folder updated successfully') }, 404: notFound },
      async handle({ auth, params, body }) {
        const folder = await updateFolder(deps, auth.user.id, params.id, body);
        return { body: { message: 'Folder updated successfully', data: folderItem(folder) } };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: `${base}/{id}`,
      tag: TAG,
      summary: `Delete a folder; its assistants stay, uncategorized${alias}`,
      auth: 'bearer',
      params: IdParams,
      responses: { 200: { description: 'Deleted', schema: MessageBody }, 404: notFound },
      async handle({ auth, params }) {
        await deleteFolder(deps, auth.user.id, params.id);
        return { body: { message: 'Folder deleted successfully' } };
      },
    }),
  ];

  return [
    defineRoute({
      method: 'GET',
      path: '/user/folders',
      tag: TAG,
      summary: "List the caller's folders with their assistant counts, paginated",
      auth: 'bearer',
      query: BadgeListQuery,
      responses: { 200: { description: 'A page of folders', schema: FolderPage } },
      async handle({ auth, query, ctx }) {
        const page = { page: query.page ?? 1, perPage: query.per_page ?? 15 };
        const { folders, total } = await listFolders(deps, auth.user.id, page);
        return {
          body: lengthAwarePage({ data: folders.map(folderItem), total, page, path: `${deps.publicUrl}/api/user/folders`, query: ctx.query }),
        };
      },
    }),
    create('/user/folder', 'Create a folder'),
    create('/user/folders', 'Create a folder (same as POST /user/folder)'),
    ...item('/user/folder', ''),
    ...item('/user/folders', ' (same as the singular path)'),
  ];
}
