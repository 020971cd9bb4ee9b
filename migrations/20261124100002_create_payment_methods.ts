import type { Knex } from 'knex';

/**
 * The cards a user has attached, as the provider described them (never a card number), so listing them costs
 * no provider round trip. One default per user, which top-ups and renewals charge.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('payment_methods', (table) => {
    table.bigIncrements('id');
    table.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.string('provider', 16).notNullable();
    table.string('payment_method_id', 255).notNullable().unique();
    table.string('brand', 32).notNullable();
    table.string('last4', 4).notNullable();
    table.smallint('exp_month').notNullable();
    table.smallint('exp_year').notNullable();
    table.boolean('is_default').notNullable().defaultTo(false);
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index(['user_id', 'id']);
  });
  await knex.raw('create unique index payment_methods_one_default on payment_methods (user_id) where is_default');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('payment_methods');
}
