import type { Knex } from 'knex';

/** Failed logins per email and client address, in the database so every API replica sees the same count. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('login_failures', (table) => {
    table.string('key', 128).primary();
    table.integer('attempts').notNullable();
    table.timestamp('first_failed_at', { useTz: true }).notNullable();
    table.timestamp('locked_until', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('login_failures');
}
