import type { Knex } from 'knex';

/**
 * What a minute of a call costs, per plan (0.10 USD unless an operator sets another price), and the price a
 * call is billed at, copied onto the call when it starts: a plan changed mid-call does not reprice the call.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('plans', (table) => {
    table.bigInteger('call_price_per_minute_micros').notNullable().defaultTo(100_000);
  });
  await knex.raw('alter table plans add constraint plans_call_price_not_negative check (call_price_per_minute_micros >= 0)');
  await knex.schema.alterTable('calls', (table) => {
    table.bigInteger('price_per_minute_micros');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('calls', (table) => {
    table.dropColumn('price_per_minute_micros');
  });
  await knex.schema.alterTable('plans', (table) => {
    table.dropColumn('call_price_per_minute_micros');
  });
}
