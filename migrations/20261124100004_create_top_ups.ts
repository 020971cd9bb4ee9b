import type { Knex } from 'knex';

/**
 * Balance top-ups, one row per charge asked for. The key is unique per user, so a retried request finds its
 * top-up; the ledger credit's own key (`top-up:<id>`) makes crediting happen once, whether the charge's
 * answer or its webhook event comes first.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('top_ups', (table) => {
    table.bigIncrements('id');
    table.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.bigInteger('amount_micros').notNullable();
    table.string('idempotency_key', 255).notNullable();
    // pending (being charged), processing (confirmed later by webhook), succeeded, failed.
    table.string('status', 16).notNullable().defaultTo('pending');
    table.string('payment_id', 255);
    table.string('failure_reason', 64);
    table.string('failure_message', 500);
    table.boolean('automatic').notNullable().defaultTo(false);
    table.timestamps(true, true);
    table.unique(['user_id', 'idempotency_key']);
    table.index(['payment_id']);
  });
  await knex.raw("alter table top_ups add constraint top_ups_status check (status in ('pending', 'processing', 'succeeded', 'failed'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('top_ups');
}
