import type { Knex } from 'knex';

/**
 * The numbers a search showed a user, with the price and terms it showed: a purchase must be of one of them
 * (the contract's "search for available numbers first"), at the price the user saw. An offer lasts an hour.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('phone_number_offers', (table) => {
    table.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.string('phone_number', 32).notNullable();
    table.string('country_code', 2).notNullable();
    table.bigInteger('monthly_price_micros').notNullable();
    table.boolean('sms_capable').notNullable();
    table.timestamp('expires_at', { useTz: true }).notNullable();
    table.primary(['user_id', 'phone_number']);
    table.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('phone_number_offers');
}
