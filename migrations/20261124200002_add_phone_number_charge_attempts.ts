import type { Knex } from 'knex';

/**
 * A failed renewal is tried again (after 1, 3 and 5 days): each try is a charge of its own, with its own
 * idempotency key at the provider, so a period may have several charges, one per try.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('phone_number_charges', (table) => {
    table.integer('attempt').notNullable().defaultTo(0);
    table.dropUnique(['phone_number_id', 'period']);
    table.unique(['phone_number_id', 'period', 'attempt']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('phone_number_charges', (table) => {
    table.dropUnique(['phone_number_id', 'period', 'attempt']);
    table.unique(['phone_number_id', 'period']);
    table.dropColumn('attempt');
  });
}
