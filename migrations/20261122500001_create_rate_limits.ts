import type { Knex } from 'knex';

/**
 * Request rate limits kept where every API replica sees them (db/rate-limiter.ts): one row per limited key
 * with its theoretical arrival time (GCRA), in milliseconds since the epoch, as a double so SQL and the
 * in-process limiter do the same arithmetic. A row whose time has passed says nothing and may be deleted.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('rate_limits', (table) => {
    table.string('key', 200).primary();
    table.double('arrival_ms').notNullable().index();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('rate_limits');
}
