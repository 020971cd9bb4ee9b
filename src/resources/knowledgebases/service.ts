import type { Knex } from 'knex';
import { NotFoundError } from '../../lib/errors.ts';
import type { FileStorage } from '../../providers/storage/index.ts';
import type { TemporalClient } from '../../temporal/client.ts';
import { deleteDocumentFiles } from '../../knowledge/files.ts';
import { Document } from '../documents/model.ts';
import { cancelDocumentIngestion } from '../../temporal/starters.ts';
import { ensureWithinPlanLimit } from '../../billing/plans.ts';
import { Knowledgebase } from './model.ts';

export interface KnowledgebaseDeps {
  knex: Knex;
  temporal: TemporalClient;
  storage: FileStorage;
}

export const knowledgebaseNotFound = () => new NotFoundError('Knowledgebase not found.');

/** The caller's knowledge bases with real counts of their documents and of the assistants that use them. */
function withCounts(knex: Knex, userId: number) {
  return Knowledgebase.query(knex)
    .where('knowledgebases.userId', userId)
    .select('knowledgebases.*')
    .select(knex.raw('(select count(*) from documents where documents.knowledgebase_id = knowledgebases.id)::int as documents_count'))
    .select(knex.raw('(select count(*) from assistants where assistants.knowledgebase_id = knowledgebases.id)::int as assistants_count'));
}

export async function listKnowledgebases(knex: Knex, userId: number): Promise<Knowledgebase[]> {
  return await withCounts(knex, userId).orderBy('knowledgebases.id');
}

export async function getKnowledgebase(knex: Knex, userId: number, id: number): Promise<Knowledgebase> {
  const record = await withCounts(knex, userId).findOne('knowledgebases.id', id);
  if (!record) throw knowledgebaseNotFound();
  return record;
}

/** Only the owner sees a knowledge base; anyone else is told it does not exist. */
export async function findOwnedKnowledgebase(knex: Knex, userId: number, id: number): Promise<Knowledgebase> {
  const record = await Knowledgebase.query(knex).findOne({ id, userId });
  if (!record) throw knowledgebaseNotFound();
  return record;
}

export async function createKnowledgebase(
  knex: Knex,
  user: { id: number; planId: string },
  input: { name: string; description?: string | null },
): Promise<Knowledgebase> {
  return knex.transaction(async (trx) => {
    // Locks the owner so that two creates at once cannot both pass the plan limit.
    await trx('users').where({ id: user.id }).forUpdate().select('id');
    const [{ count }] = await trx('knowledgebases').where({ userId: user.id }).count({ count: '*' }) as [{ count: number }];
    await ensureWithinPlanLimit(trx, user.planId, 'knowledgebases', Number(count));
    return Knowledgebase.query(trx).insertAndFetch({ userId: user.id, name: input.name, description: input.description ?? null, status: 'empty' });
  });
}

export async function updateKnowledgebase(
  knex: Knex,
  userId: number,
  id: number,
  input: { name?: string; description?: string | null },
): Promise<Knowledgebase> {
  const record = await findOwnedKnowledgebase(knex, userId, id);
  const changes: Partial<Knowledgebase> = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.description !== undefined) changes.description = input.description;
  if (Object.keys(changes).length === 0) return record;
  return Knowledgebase.query(knex).patchAndFetchById(record.id, { ...changes, updatedAt: new Date() });
}

/**
 * Deletes a knowledge base with its documents, chunks and stored files; assistants that used it are
 * detached (their foreign key is set null). Running ingestions are cancelled first so none writes after.
 */
export async function deleteKnowledgebase(deps: KnowledgebaseDeps, userId: number, id: number): Promise<void> {
  const record = await findOwnedKnowledgebase(deps.knex, userId, id);
  const documents = await Document.query(deps.knex).where({ knowledgebaseId: record.id }).select('id', 'status', 'fileKey');
  for (const document of documents) {
    if (document.status === 'processing') await cancelDocumentIngestion(deps.temporal, document.id);
  }
  await Knowledgebase.query(deps.knex).deleteById(record.id);
  for (const document of documents) await deleteDocumentFiles(deps.storage, document);
}
