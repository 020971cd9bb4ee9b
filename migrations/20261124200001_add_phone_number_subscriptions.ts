import type { Knex } from 'knex';

/**
 * What a bought number's subscription needs on its row, and one row per charge of it.
 * - `status`: pending (being bought), active, past_due (a renewal failed; retried), released, failed (the
 *   purchase did not go through). A number is held by one row at a time: the unique index covers the rows
 *   that hold it, so two users racing for a number cannot both have it, and a released number can be bought
 *   again.
 * - `period`: the paid periods so far (1 once the purchase is paid); `period_anchor` is when the first began,
 *   so every period's end is computed from it (src/billing/renewals.ts), never from the last one.
 * - `phone_number_charges`: a charge per period, keyed so a retried renewal finds its charge and never makes
 *   another; the provider's idempotency key is derived from the same pair.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('phone_numbers', (table) => {
    table.string('status', 16).notNullable().defaultTo('active');
    table.string('status_reason', 255);
    table.string('provider', 16);
    table.string('provider_number_id', 64);
    table.bigInteger('monthly_price_micros');
    table.integer('period').notNullable().defaultTo(0);
    table.timestamp('period_anchor', { useTz: true });
    table.timestamp('current_period_end', { useTz: true });
    table.timestamp('release_requested_at', { useTz: true });
    table.timestamp('released_at', { useTz: true });
  });
  await knex.raw("alter table phone_numbers add constraint phone_numbers_status check (status in ('pending', 'active', 'past_due', 'released', 'failed'))");
  await knex.raw("create unique index phone_numbers_held on phone_numbers (phone_number) where type = 'normal' and status in ('pending', 'active', 'past_due')");

  await knex.schema.createTable('phone_number_charges', (table) => {
    table.bigIncrements('id');
    table.bigInteger('phone_number_id').notNullable().references('phone_numbers.id').onDelete('CASCADE');
    table.integer('period').notNullable();
    table.bigInteger('amount_micros').notNullable();
    // pending (asked of the provider), processing (confirmed later), succeeded, failed.
    table.string('status', 16).notNullable().defaultTo('pending');
    table.string('payment_id', 255);
    table.string('failure_reason', 64);
    table.timestamps(true, true);
    table.unique(['phone_number_id', 'period']);
    table.index(['payment_id']);
  });
  await knex.raw("alter table phone_number_charges add constraint phone_number_charges_status check (status in ('pending', 'processing', 'succeeded', 'failed'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('phone_number_charges');
  await knex.raw('drop index phone_numbers_held');
  await knex.schema.alterTable('phone_numbers', (table) => {
    table.dropChecks(['phone_numbers_status']);
    table.dropColumns('status', 'status_reason', 'provider', 'provider_number_id', 'monthly_price_micros', 'period', 'period_anchor', 'current_period_end', 'release_requested_at', 'released_at');
  });
}
