import type { Knex } from 'knex';

/**
 * The sandbox carrier's own books: every number it has provisioned, kept after release so a retried
 * provisioning (same key) finds its number, while the partial unique index lets a released number be
 * provisioned again by a later purchase.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sandbox_phone_numbers', (table) => {
    table.string('id', 64).primary();
    table.string('phone_number', 32).notNullable();
    table.string('idempotency_key', 255).notNullable().unique();
    table.timestamp('provisioned_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('released_at', { useTz: true });
  });
  await knex.raw('create unique index sandbox_phone_numbers_held on sandbox_phone_numbers (phone_number) where released_at is null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sandbox_phone_numbers');
}
