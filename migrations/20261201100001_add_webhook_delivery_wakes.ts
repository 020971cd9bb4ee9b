import type { Knex } from 'knex';

/**
 * Waking a receiver's waiting deliveries when it takes one again (docs/decisions.md, "A receiver's success wakes
 * its other waiting deliveries"): `woken_at` says when a delivery's wait was cut short, which happens once per
 * delivery. The two partial indexes read only pending deliveries of one account and URL: those not yet woken,
 * oldest first (the ones to wake), and those woken in the last minute (the ones still on their way).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_deliveries', (table) => {
    table.timestamp('woken_at', { useTz: true });
  });
  await knex.raw(`create index webhook_deliveries_wakeable on webhook_deliveries (user_id, url, id)
    where status = 'pending' and woken_at is null`);
  await knex.raw(`create index webhook_deliveries_woken on webhook_deliveries (user_id, url, woken_at)
    where status = 'pending' and woken_at is not null`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index webhook_deliveries_woken');
  await knex.raw('drop index webhook_deliveries_wakeable');
  await knex.schema.alterTable('webhook_deliveries', (table) => {
    table.dropColumn('woken_at');
  });
}
