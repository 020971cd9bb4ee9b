import type { Knex } from 'knex';

/**
 * The media processes of the deployment, as each reports itself every few seconds: its MEDIA_MAX_CALLS and the
 * calls it carries now. A campaign dials only while their lines are not all taken (src/billing/media-capacity.ts);
 * a process that stopped reporting (killed) no longer counts once its report is stale.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('media_nodes', (table) => {
    table.string('id', 64).primary();
    table.integer('max_calls').notNullable();
    table.integer('live_calls').notNullable();
    table.timestamp('reported_at', { useTz: true }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('media_nodes');
}
