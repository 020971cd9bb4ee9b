import type { Knex } from 'knex';

/**
 * The SIP gateway's calls (docs/decisions.md, "SIP trunks: a gateway of Parley's own"): the id Parley and the
 * gateway know a call by, the call it carries, the sip replica holding its dialog and media (so a hang-up or a
 * transfer asked of any replica reaches that one), and, for a call Parley placed, the dial attempt's key, so a
 * retried dial answers the call placed the first time instead of dialing again. `answered_at` and `ended_at`
 * let a replica that restarts end the calls its gateway held when it died.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sip_calls', (table) => {
    table.string('call_sid', 64).primary();
    table.bigInteger('call_id').notNullable().index();
    table.string('dial_key', 255).unique();
    table.string('gateway_url', 255).notNullable();
    table.timestamp('answered_at', { useTz: true });
    table.timestamp('ended_at', { useTz: true });
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index sip_calls_live on sip_calls (gateway_url) where ended_at is null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sip_calls');
}
