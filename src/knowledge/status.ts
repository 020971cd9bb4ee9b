import type { Knex } from 'knex';

/**
 * Rewrites a knowledge base's status from its documents: `empty` with none, `processing` while any is,
 * `active` when at least one is active and none processing, `failed` when all failed. The row is locked
 * first so that the count is read after any concurrent recompute commits: two documents finishing at once
 * cannot leave a stale status behind. The lock is `FOR NO KEY UPDATE`, not `FOR UPDATE`: a transaction that
 * inserted a document already holds the foreign key's `FOR KEY SHARE` on this row, which `FOR UPDATE` would
 * wait on, so two uploads into one knowledge base deadlocked.
 */
export async function recomputeKnowledgebaseStatus(knex: Knex, knowledgebaseId: number): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx('knowledgebases').where({ id: knowledgebaseId }).forNoKeyUpdate().select('id');
    await trx.raw(`
    update knowledgebases set status = (
      select case
        when count(*) = 0 then 'empty'
        when count(*) filter (where status = 'processing') > 0 then 'processing'
        when count(*) filter (where status = 'active') > 0 then 'active'
        else 'failed'
      end
      from documents where knowledgebase_id = :id
    )
    where id = :id`, { id: knowledgebaseId });
  });
}
