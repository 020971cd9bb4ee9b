import type { Knex } from 'knex';

/** Each user's customer at the payment provider, created on first need and reused for every card and charge. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('payment_customers', (table) => {
    table.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
    // A deployment that switches provider keeps both customers apart.
    table.string('provider', 16).notNullable();
    table.string('customer_id', 255).notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.primary(['user_id', 'provider']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('payment_customers');
}
