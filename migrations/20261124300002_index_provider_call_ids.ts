import type { Knex } from 'knex';

/**
 * A carrier's callbacks for calls it brought in (inbound calls, the number's own status callback) name the
 * call by the carrier's id alone; and a repeated voice webhook must find the call it created.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create unique index calls_provider_call_id on calls (provider_call_id) where provider_call_id is not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index calls_provider_call_id');
}
