import type { Knex } from 'knex';

/**
 * What a call holds of its owner's balance while it is live: the most it can cost, set when it is prepared
 * (its time limit at its price). The owner's other calls are prepared against the balance less the
 * reservations of every call not yet ended (docs/decisions.md, "Concurrent calls share the balance"). The
 * partial index finds an owner's live calls, for these reservations and for the plan's concurrent-call limit,
 * without reading the owner's ended calls.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('calls', (table) => {
    table.bigInteger('reserved_micros');
  });
  await knex.raw('create index calls_live_user_id on calls (user_id) where ended_at is null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index calls_live_user_id');
  await knex.schema.alterTable('calls', (table) => {
    table.dropColumn('reserved_micros');
  });
}
