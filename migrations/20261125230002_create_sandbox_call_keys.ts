import type { Knex } from 'knex';

/**
 * The sandbox carrier's memory of dial keys: the call it placed for each, so the same key asked again answers
 * that call instead of dialing another. In the database, not in a replica's memory, so a retry that reaches
 * another api replica (or the same one after a restart) still finds it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sandbox_call_keys', (table) => {
    table.string('idempotency_key', 255).primary();
    table.string('call_sid', 64).notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).index();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sandbox_call_keys');
}
