import type { Knex } from 'knex';

/**
 * The countries an account chose to allow calls and messages to (ISO 3166-1 alpha-2, upper case); null keeps
 * the default, the countries of the account's own numbers.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (table) => {
    table.jsonb('dialing_countries');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (table) => {
    table.dropColumn('dialing_countries');
  });
}
