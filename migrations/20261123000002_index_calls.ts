import type { Knex } from 'knex';

/**
 * Indexes for `GET /user/calls`: newest first (`id desc`) within one user, for each filter the list takes. With
 * the equality columns first and `id` last, a filtered page is read straight off one index in order, and a date
 * range (turned into bounds on `id` from `call_day_counts`) is a range on that same last column.
 */
const FILTERED = ['status', 'type', 'client_phone_number', 'assistant_id', 'campaign_id'] as const;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('calls', (table) => {
    for (const column of FILTERED) table.index(['user_id', column, 'id'], `calls_user_id_${column}_id_index`);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('calls', (table) => {
    for (const column of FILTERED) table.dropIndex(['user_id', column, 'id'], `calls_user_id_${column}_id_index`);
  });
}
