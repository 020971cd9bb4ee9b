import type { Knex } from 'knex';

/** Rows written by the platformSelfCheck workflow: proof that API, Temporal, worker and database work together. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('platform_checks', (table) => {
    table.string('id', 64).primary();
    table.string('workflow_id', 128).notNullable();
    table.timestamp('completed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('platform_checks');
}
