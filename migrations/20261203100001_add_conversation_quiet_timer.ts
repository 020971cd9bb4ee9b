import type { Knex } from 'knex';

/**
 * A conversation's inactivity timer without a Temporal call per message (docs/decisions.md, "The
 * conversation-ended webhook"): each stored message writes `last_message_at`, which the timer's workflow reads
 * when it wakes, and `quiet_timer_at` says since when a timer runs (null: none), so only a message that finds none
 * starts one. Conversations already open keep the time of their last change as that of their last message; their
 * timers, started by the older code, read it when they next wake.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('conversations', (table) => {
    table.timestamp('last_message_at', { useTz: true });
    table.timestamp('quiet_timer_at', { useTz: true });
  });
  await knex('conversations').where('message_count', '>', 0).update({ lastMessageAt: knex.ref('updated_at') });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('conversations', (table) => {
    table.dropColumn('quiet_timer_at');
    table.dropColumn('last_message_at');
  });
}
