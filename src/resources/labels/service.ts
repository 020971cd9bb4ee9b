import type { Knex } from 'knex';
import { isUniqueViolation } from '../../db/errors.ts';
import { NotFoundError, ValidationError } from '../../lib/errors.ts';
import { pageWindow, type PageRequest } from '../../lib/pagination.ts';
import { Label } from './model.ts';
import { NAME_TAKEN } from '../folders/service.ts';
import type { CreateLabelBody, UpdateLabelBody } from './schemas.ts';

export interface LabelDeps {
  knex: Knex;
}

const NOT_FOUND = 'Label not found';

/** The caller's labels, each with the count of assistants it is applied to. */
function withCount(knex: Knex, userId: number) {
  return Label.query(knex)
    .where('labels.userId', userId)
    .select('labels.*')
    .select(knex.raw('(select count(*) from assistant_labels where assistant_labels.label_id = labels.id)::int as assistants_count'));
}

async function findOwn(knex: Knex, userId: number, id: number): Promise<Label> {
  const label = await withCount(knex, userId).findOne('labels.id', id);
  if (!label) throw new NotFoundError(NOT_FOUND);
  return label;
}

async function ensureNameFree(knex: Knex, userId: number, name: string, exceptId?: number): Promise<void> {
  const query = Label.query(knex).where({ userId }).whereRaw('lower(name) = lower(?)', [name]);
  if (exceptId !== undefined) query.whereNot({ id: exceptId });
  if (await query.first()) throw ValidationError.of('name', NAME_TAKEN);
}

/** Runs a write that may meet the unique index when two requests race for one name. */
async function guardingName<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error, 'labels_user_name_unique')) throw ValidationError.of('name', NAME_TAKEN);
    throw error;
  }
}

export async function listLabels(deps: LabelDeps, userId: number, page: PageRequest): Promise<{ labels: Label[]; total: number }> {
  const { offset, limit } = pageWindow(page);
  const [labels, total] = await Promise.all([
    withCount(deps.knex, userId).orderBy('labels.id').offset(offset).limit(limit),
    Label.query(deps.knex).where({ userId }).resultSize(),
  ]);
  return { labels, total };
}

export async function getLabel(deps: LabelDeps, userId: number, id: number): Promise<Label> {
  return findOwn(deps.knex, userId, id);
}

export async function createLabel(deps: LabelDeps, userId: number, input: CreateLabelBody): Promise<Label> {
  return guardingName(() => deps.knex.transaction(async (trx) => {
    await ensureNameFree(trx, userId, input.name);
    const { id } = await Label.query(trx).insert({ userId, name: input.name, color: input.color ?? null });
    return findOwn(trx, userId, id);
  }));
}

export async function updateLabel(deps: LabelDeps, userId: number, id: number, input: UpdateLabelBody): Promise<Label> {
  return guardingName(() => deps.knex.transaction(async (trx) => {
    const existing = await Label.query(trx).findOne({ id, userId }).forUpdate();
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

/** Deletes the label; the join table's cascade removes it from its assistants, which stay. */
export async function deleteLabel(deps: LabelDeps, userId: number, id: number): Promise<void> {
  const deleted = await Label.query(deps.knex).delete().where({ id, userId });
  if (deleted === 0) throw new NotFoundError(NOT_FOUND);
}
