import type { Knex } from 'knex';

/** Where an inbound call is announced before it is answered (anchor §5.6 enable-inbound-webhook); null: nowhere. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('assistants', (table) => {
    table.string('inbound_webhook_url', 2048);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('assistants', (table) => {
    table.dropColumn('inbound_webhook_url');
  });
}
