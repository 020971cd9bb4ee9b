import type { Knex } from 'knex';

/**
 * The sandbox payment provider's own state (what Stripe keeps on its side), so a restart changes nothing:
 * customers, the cards attached to them, and payments, whose idempotency key is unique so that a retried
 * charge finds the first one instead of charging again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sandbox_customers', (table) => {
    table.string('id', 64).primary();
    table.string('email', 255).notNullable();
    table.string('default_payment_method_id', 64);
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('sandbox_payment_methods', (table) => {
    table.string('id', 64).primary();
    table.string('customer_id', 64).references('sandbox_customers.id').onDelete('CASCADE');
    // The Stripe test PaymentMethod it was made from (`pm_card_visa`): it decides how charges behave.
    table.string('test_method', 64).notNullable();
    table.string('brand', 32).notNullable();
    table.string('last4', 4).notNullable();
    table.smallint('exp_month').notNullable();
    table.smallint('exp_year').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('sandbox_payments', (table) => {
    table.string('id', 64).primary();
    table.string('customer_id', 64).notNullable();
    table.string('payment_method_id', 64).notNullable();
    table.bigInteger('amount_micros').notNullable();
    table.string('status', 32).notNullable();
    table.string('failure_reason', 64);
    table.string('failure_message', 255);
    table.string('description', 500);
    table.jsonb('metadata').notNullable().defaultTo('{}');
    table.string('idempotency_key', 255).notNullable().unique();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sandbox_payments');
  await knex.schema.dropTable('sandbox_payment_methods');
  await knex.schema.dropTable('sandbox_customers');
}
