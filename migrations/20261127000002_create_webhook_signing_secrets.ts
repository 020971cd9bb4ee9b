import type { Knex } from 'knex';

/**
 * Each account's webhook signing secret (`whsec_…`), encrypted under the app key like every secret at rest.
 * After a rotation the previous secret still signs, beside the new one, until `previous_expires_at`, so that
 * receivers can switch over without missing an event.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_signing_secrets', (table) => {
    table.bigInteger('user_id').primary().references('users.id').onDelete('CASCADE');
    table.text('secret').notNullable();
    table.text('previous_secret');
    table.timestamp('previous_expires_at', { useTz: true });
    table.timestamps(true, true);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_signing_secrets');
}
