import type { Knex } from 'knex';

/**
 * What a segment of a sent SMS costs, per plan (0.01 USD unless an operator sets another price). A message is
 * billed by its segments (src/billing/sms-pricing.ts), at the price of the sender's plan when it is sent.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('plans', (table) => {
    table.bigInteger('sms_price_per_segment_micros').notNullable().defaultTo(10_000);
  });
  await knex.raw('alter table plans add constraint plans_sms_price_not_negative check (sms_price_per_segment_micros >= 0)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('plans', (table) => {
    table.dropChecks(['plans_sms_price_not_negative']);
    table.dropColumn('sms_price_per_segment_micros');
  });
}
