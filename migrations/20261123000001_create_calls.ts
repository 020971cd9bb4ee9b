import type { Knex } from 'knex';

/**
 * Calls: phone calls both ways and web calls. A row is created with the call (status `initiated`) and moved
 * through the contract's statuses by the callLifecycle workflow; what the engine learns (transcript turns
 * with timestamps, per-turn latency, the end reason, provider ids) is stored beside the contract's fields.
 * The assistant's and campaign's names are copied in, so a call keeps its history after either is deleted.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('calls', (table) => {
    table.bigIncrements('id');
    table.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.bigInteger('assistant_id').references('assistants.id').onDelete('SET NULL');
    table.string('assistant_name', 255).notNullable();
    // Campaigns and leads arrive with their own issue; until then these are plain references.
    table.bigInteger('campaign_id');
    table.string('campaign_name', 255);
    table.bigInteger('lead_id');
    table.string('type', 16).notNullable();
    table.string('status', 24).notNullable().defaultTo('initiated');
    table.string('assistant_phone_number', 32);
    table.string('client_phone_number', 32);
    // Seconds from answer to hang-up, per started second; 0 until the call ends.
    table.integer('duration').notNullable().defaultTo(0);
    // The contract's transcript: `AI: …` / `Customer: …` lines, written when the call ends.
    table.text('transcript').notNullable().defaultTo('');
    // Timestamped turns `[{role, text, startedAt, endedAt, interrupted, metrics}]`, appended as they commit.
    table.jsonb('turns').notNullable().defaultTo('[]');
    table.jsonb('variables').notNullable().defaultTo('{}');
    table.jsonb('evaluation');
    table.jsonb('webhook_response');
    table.bigInteger('carrier_cost_micros').notNullable().defaultTo(0);
    table.bigInteger('total_cost_micros').notNullable().defaultTo(0);
    table.string('answered_by', 16);
    // The recording's key in file storage; `recording_url` is a signed link made from it when read.
    table.string('recording_key', 512);
    // Why the call ended, in the engine's words (`customer_hangup`, `assistant_end_call`, `max_duration`, …).
    table.string('end_reason', 64);
    // The carrier's id of the call (a Twilio CallSid) and of its media stream.
    table.string('provider_call_id', 64);
    table.string('stream_sid', 64);
    // The most the call may last, set when it starts: the assistant's max_call_duration or what the balance
    // pays for, whichever is less. The engine ends the call politely at it; the workflow's timer is the backstop.
    table.integer('max_seconds');
    table.string('limit_reason', 32);
    // The media replica holding the live session (its internal URL), so a hang-up request reaches it.
    table.string('media_session_url', 512);
    // A web call's single-use WebSocket credential, stored as a SHA-256 hash; cleared when redeemed.
    table.string('media_token_hash', 64);
    table.timestamp('media_token_expires_at', { useTz: true });
    table.timestamp('answered_at', { useTz: true });
    table.timestamp('ended_at', { useTz: true });
    table.timestamps(true, true);
    table.index(['user_id', 'id']);
    table.index(['assistant_id']);
    table.index(['provider_call_id']);
    table.unique(['media_token_hash']);
  });
  await knex.raw("alter table calls add constraint calls_type check (type in ('inbound', 'outbound', 'web'))");
  await knex.raw(`alter table calls add constraint calls_status check (status in (
    'initiated', 'ringing', 'busy', 'in-progress', 'ended', 'completed', 'ended_by_customer', 'ended_by_assistant',
    'no-answer', 'failed'))`);
  await knex.raw("alter table calls add constraint calls_answered_by check (answered_by in ('human', 'machine', 'unknown'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('calls');
}
