import type { Knex } from 'knex';

/**
 * What a live call's media session and reservation need (docs/decisions.md, "A call's media session reports it
 * is alive" and "Calls reserve the balance a minute at a time"): `media_seen_at`, when the media process holding
 * the session last reported it alive (it reports all its sessions every two seconds, in one statement);
 * `media_lost_at`, when a session found silent was taken to be lost and its workflow told, so it is told once;
 * `max_duration_seconds`, the most the call may last (the assistant's max_call_duration when it was created),
 * where `max_seconds` is what it has reserved so far. The partial index reads only the live calls whose session
 * has not yet been found lost, by their last report.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('calls', (table) => {
    table.timestamp('media_seen_at', { useTz: true });
    table.timestamp('media_lost_at', { useTz: true });
    table.integer('max_duration_seconds');
  });
  await knex.raw('create index calls_live_media_seen_at on calls (media_seen_at) where ended_at is null and media_lost_at is null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index calls_live_media_seen_at');
  await knex.schema.alterTable('calls', (table) => {
    table.dropColumn('max_duration_seconds');
    table.dropColumn('media_lost_at');
    table.dropColumn('media_seen_at');
  });
}
