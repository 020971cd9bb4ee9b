import type { Knex } from 'knex';

/** The ids of payment provider events already handled: a replayed or redelivered event does nothing twice. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('payment_webhook_events', (table) => {
    table.string('event_id', 255).primary();
    table.string('type', 128).notNullable();
    table.timestamp('received_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('payment_webhook_events');
}
