import type { Knex } from 'knex';
import { isUniqueViolation } from '../../db/errors.ts';
import { NotFoundError, ValidationError } from '../../lib/errors.ts';
import { pageWindow, type PageRequest } from '../../lib/pagination.ts';
import { Folder } from './model.ts';
import type { CreateFolderBody, UpdateFolderBody } from './schemas.ts';

export interface FolderDeps {
  knex: Knex;
}

const NOT_FOUND = 'Folder not found';
export const NAME_TAKEN = 'The name has already been taken.';

/** The caller's folders, each with the count of assistants in it. */
function withCount(knex: Knex, userId: number) {
  return Folder.query(knex)
    .where('folders.userId', userId)
    .select('folders.*')
    .select(knex.raw('(select count(*) from assistants where assistants.folder_id = folders.id)::int as assistants_count'));
}

async function findOwn(knex: Knex, userId: number, id: number): Promise<Folder> {
  const folder = await withCount(knex, userId).findOne('folders.id', id);
  if (!folder) throw new NotFoundError(NOT_FOUND);
  return folder;
}

async function ensureNameFree(knex: Knex, userId: number, name: string, exceptId?: number): Promise<void> {
  const query = Folder.query(knex).where({ userId }).whereRaw('lower(name) = lower(?)', [name]);
  if (exceptId !== undefined) query.whereNot({ id: exceptId });
  if (await query.first()) throw ValidationError.of('name', NAME_TAKEN);
}

/** Runs a write that may meet the unique index when two requests race for one name. */
async function guardingName<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error, 'folders_user_name_unique')) throw ValidationError.of('name', NAME_TAKEN);
    throw error;
  }
}

export async function listFolders(deps: FolderDeps, userId: number, page: PageRequest): Promise<{ folders: Folder[]; total: number }> {
  const { offset, limit } = pageWindow(page);
  const [folders, total] = await Promise.all([
    withCount(deps.knex, userId).orderBy('folders.id').offset(offset).limit(limit),
    Folder.query(deps.knex).where({ userId }).resultSize(),
  ]);
  return { folders, total };
}

export async function getFolder(deps: FolderDeps, userId: number, id: number): Promise<Folder> {
  return findOwn(deps.knex, userId, id);
}

export async function createFolder(deps: FolderDeps, userId: number, input: CreateFolderBody): Promise<Folder> {
  return guardingName(() => deps.knex.transaction(async (trx) => {
    await ensureNameFree(trx, userId, input.name);
    const { id } = await Folder.query(trx).insert({ userId, name: input.name, color: input.color ?? null });
    return findOwn(trx, userId, id);
  }));
}

export async function updateFolder(deps: FolderDeps, userId: number, id: number, input: UpdateFolderBody): Promise<Folder> {
  return guardingName(() => deps.knex.transaction(async (trx) => {
    const existing = await Folder.query(trx).findOne({ id, userId }).forUpdate();
    if (!existing) throw new NotFoundError(NOT_FOUND);
    if (input.name !== undefined) await ensureNameFree(trx, userId, input.name, id);
    await existing.$query(trx).patch({
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.color !== undefined ? { color: input.color } : {}),
      updatedAt: new Date(),
    });
    return findOwn(trx, userId, id);
  }));
}

/** Deletes the folder; its assistants stay, uncategorized (the foreign key sets their `folder_id` to null). */
export async function deleteFolder(deps: FolderDeps, userId: number, id: number): Promise<void> {
  const deleted = await Folder.query(deps.knex).delete().where({ id, userId });
  if (deleted === 0) throw new NotFoundError(NOT_FOUND);
}
