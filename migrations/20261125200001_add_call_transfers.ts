import type { Knex } from 'knex';

/**
 * The transfers of a call (`call_transfer`, `assistant_transfer`), oldest first, each with its outcome: the
 * contract's call has no field for them, so they are a list of their own, shown beside the turns.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('calls', (table) => {
    table.jsonb('transfers').notNullable().defaultTo('[]');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('calls', (table) => {
    table.dropColumn('transfers');
  });
}
