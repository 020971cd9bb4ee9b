import type { Knex } from 'knex';

/**
 * The numbers a campaign dials from, in rotation order (`phone_number_ids`). A row goes with its campaign or its
 * number: deleting the campaign releases its assignments, and a released number leaves every rotation.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('campaign_phone_numbers', (table) => {
    table.bigInteger('campaign_id').notNullable().references('campaigns.id').onDelete('CASCADE');
    table.bigInteger('phone_number_id').notNullable().references('phone_numbers.id').onDelete('CASCADE');
    table.integer('position').notNullable();
    table.primary(['campaign_id', 'phone_number_id']);
    table.index(['phone_number_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('campaign_phone_numbers');
}
