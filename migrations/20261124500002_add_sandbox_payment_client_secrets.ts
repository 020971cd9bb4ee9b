import type { Knex } from 'knex';

/**
 * The sandbox payment provider keeps a payment's client secret, as Stripe does: a payment waiting for its
 * holder's authentication is answered with it each time it is read.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sandbox_payments', (table) => {
    table.string('client_secret', 255);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sandbox_payments', (table) => {
    table.dropColumn('client_secret');
  });
}
