import type { Knex } from 'knex';
import { isUniqueViolation } from '../../db/errors.ts';
import { NotFoundError, ValidationError } from '../../lib/errors.ts';
import { pageWindow, type PageRequest } from '../../lib/pagination.ts';
import { capitalized, type BadgeKind } from './kind.ts';
import type { Badge } from './model.ts';
import type { CreateBadgeBody, UpdateBadgeBody } from './schemas.ts';

export interface BadgeDeps {
  knex: Knex;
}

const NAME_TAKEN = 'The name has already been taken.';

/**
 * The rules of one kind of badge: the caller's own records, names stored trimmed (as Laravel trims input) and unique
 * among them regardless of case.
 */
export function badgeService(kind: BadgeKind) {
  const { model } = kind;
  const table = model.tableName;
  const notFound = `${capitalized(kind.noun)} not found`;

  /** The caller's badges, each with the count of assistants it holds. */
  function withCount(knex: Knex, userId: number) {
    const { table: counted, column } = kind.assistants;
    return model.query(knex)
      .where(`${table}.userId`, userId)
      .select(`${table}.*`)
      .select(knex.raw('(select count(*) from ?? where ?? = ??)::int as assistants_count', [counted, `${counted}.${column}`, `${table}.id`]));
  }

  async function findOwn(knex: Knex, userId: number, id: number): Promise<Badge> {
    const badge = await withCount(knex, userId).findOne(`${table}.id`, id);
    if (!badge) throw new NotFoundError(notFound);
    return badge;
  }

  async function ensureNameFree(knex: Knex, userId: number, name: string, exceptId?: number): Promise<void> {
    const query = model.query(knex).where({ userId }).whereRaw('lower(name) = lower(?)', [name]);
    if (exceptId !== undefined) query.whereNot({ id: exceptId });
    if (await query.first()) throw ValidationError.of('name', NAME_TAKEN);
  }

  /** Runs a write that may meet the unique index when two requests race for one name. */
  async function guardingName<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (isUniqueViolation(error, kind.uniqueConstraint)) throw ValidationError.of('name', NAME_TAKEN);
      throw error;
    }
  }

  return {
    async list(deps: BadgeDeps, userId: number, page: PageRequest): Promise<{ badges: Badge[]; total: number }> {
      const { offset, limit } = pageWindow(page);
      const [badges, total] = await Promise.all([
        withCount(deps.knex, userId).orderBy(`${table}.id`).offset(offset).limit(limit),
        model.query(deps.knex).where({ userId }).resultSize(),
      ]);
      return { badges, total };
    },

    async get(deps: BadgeDeps, userId: number, id: number): Promise<Badge> {
      return findOwn(deps.knex, userId, id);
    },

    async create(deps: BadgeDeps, userId: number, input: CreateBadgeBody): Promise<Badge> {
      const name = input.name.trim();
      return guardingName(() => deps.knex.transaction(async (trx) => {
        await ensureNameFree(trx, userId, name);
        const { id } = await model.query(trx).insert({ userId, name, color: input.color ?? null });
        return findOwn(trx, userId, id);
      }));
    },

    async update(deps: BadgeDeps, userId: number, id: number, input: UpdateBadgeBody): Promise<Badge> {
      const name = input.name?.trim();
      return guardingName(() => deps.knex.transaction(async (trx) => {
        const existing = await model.query(trx).findOne({ id, userId }).forUpdate();
        if (!existing) throw new NotFoundError(notFound);
        if (name !== undefined) await ensureNameFree(trx, userId, name, id);
        await existing.$query(trx).patch({
          ...(name !== undefined ? { name } : {}),
          ...(input.color !== undefined ? { color: input.color } : {}),
          updatedAt: new Date(),
        });
        return findOwn(trx, userId, id);
      }));
    },

    /**
     * Deletes the badge; its assistants stay. The foreign keys do the rest: a folder's assistants get a null
     * `folder_id`, a label's rows in the join table go with it.
     */
    async remove(deps: BadgeDeps, userId: number, id: number): Promise<void> {
      const deleted = await model.query(deps.knex).delete().where({ id, userId });
      if (deleted === 0) throw new NotFoundError(notFound);
    },
  };
}
