import type { Knex } from 'knex';

/** The ledger: a user's balance is the sum of their entries, in integer micro-dollars. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('balance_transactions', (table) => {
    table.bigIncrements('id');
    table.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.bigInteger('amount_micros').notNullable();
    table.string('kind', 64).notNullable();
    table.string('reference', 255);
    table.string('description', 500);
    // A retried charge or credit carries the same key and is written once.
    table.string('idempotency_key', 255).notNullable().unique();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index(['user_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('balance_transactions');
}
