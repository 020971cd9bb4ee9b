import type { Knex } from 'knex';

/**
 * The delivery log: one row per delivery of an event to a URL, and one row per attempt of it.
 *
 * - `event_id`: the event's id, sent as `Idempotency-Key`; a redelivery is a new delivery of the same event
 *   (`redelivery_of` names the one it repeats), so it keeps the id while its attempts are its own.
 * - `payload`: the JSON body exactly as sent and signed (text, so that a redelivery sends the same bytes).
 * - `kind`: `call.ended` (the post-call webhook), `conversation.ended`, `call.inbound`.
 * - `status`: `pending` (attempts to come), `delivered` (a 2xx), `failed` (an answer that retrying cannot fix,
 *   such as a 400), `dead` (every attempt failed: dead-lettered), `cancelled` (the webhook was turned off).
 * - An attempt keeps its time, the receiver's status code (null when none came), its latency, the first bytes
 *   of the answer and the error; (delivery_id, attempt) is unique, so an activity retried stores it once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_deliveries', (table) => {
    table.bigIncrements('id');
    table.uuid('event_id').notNullable();
    table.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.bigInteger('assistant_id').references('assistants.id').onDelete('SET NULL');
    table.bigInteger('call_id').references('calls.id').onDelete('SET NULL');
    table.bigInteger('conversation_id').references('conversations.id').onDelete('SET NULL');
    table.bigInteger('redelivery_of').references('webhook_deliveries.id').onDelete('SET NULL');
    table.string('kind', 64).notNullable();
    table.string('url', 2048).notNullable();
    table.text('payload').notNullable();
    table.string('status', 16).notNullable().defaultTo('pending');
    table.integer('attempts').notNullable().defaultTo(0);
    table.text('last_error');
    table.timestamp('next_attempt_at', { useTz: true });
    table.timestamps(true, true);
    // The log, newest first, and its filters.
    table.index(['user_id', 'id']);
    table.index(['user_id', 'assistant_id', 'id']);
    table.index(['user_id', 'call_id', 'id']);
    table.index(['user_id', 'status', 'id']);
    table.index(['event_id']);
  });
  await knex.raw(`alter table webhook_deliveries add constraint webhook_deliveries_status check (status in
    ('pending', 'delivered', 'failed', 'dead', 'cancelled'))`);
  await knex.schema.createTable('webhook_delivery_attempts', (table) => {
    table.bigIncrements('id');
    table.bigInteger('delivery_id').notNullable().references('webhook_deliveries.id').onDelete('CASCADE');
    table.integer('attempt').notNullable();
    table.timestamp('attempted_at', { useTz: true }).notNullable();
    table.integer('status_code');
    table.integer('latency_ms').notNullable();
    table.text('response_excerpt').notNullable().defaultTo('');
    table.text('error');
    table.unique(['delivery_id', 'attempt']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_delivery_attempts');
  await knex.schema.dropTable('webhook_deliveries');
}
