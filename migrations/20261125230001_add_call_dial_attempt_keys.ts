import type { Knex } from 'knex';

/**
 * The key of a phone call's dial, recorded before the first try reaches the carrier: a retried dial (its
 * first answer lost) presents the same key, and the carrier places at most one call per key. It replaces
 * waiting a few seconds for a status callback as the sign that an earlier try got through.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('calls', (table) => {
    table.string('dial_attempt_key', 64);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('calls', (table) => {
    table.dropColumn('dial_attempt_key');
  });
}
