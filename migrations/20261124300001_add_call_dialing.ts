import type { Knex } from 'knex';

/**
 * When a phone call's dial was first sent to the carrier: a dial retried after an answer that never came
 * waits for the carrier's first status callback (which records the carrier's call id) before dialing again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('calls', (table) => {
    table.timestamp('dial_started_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('calls', (table) => {
    table.dropColumn('dial_started_at');
  });
}
