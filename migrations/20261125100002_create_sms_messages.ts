import type { Knex } from 'knex';

/**
 * Text messages a user's numbers sent (`outbound`, through `POST /user/sms`) and received (`inbound`, from the
 * carrier's messaging webhook).
 * - `status`: `pending` (charged, not yet handed to the carrier), then the carrier's own words: `queued`,
 *   `sending`, `sent`, `delivered`, `undelivered`, `failed`; `received` for inbound messages.
 * - `charge_key`: the ledger entry that paid for it (`charge_within_balance`'s key); a refund is written under
 *   `refund:<charge_key>`, so a message is charged once and refunded at most once.
 * - `idempotency_key`: the request's `Idempotency-Key`, one message per key and user.
 * - `provider_message_id`: the carrier's id (Twilio's MessageSid); a webhook delivered twice stores one message.
 * - `phone_number_id` is cleared when the number's row goes (SIP trunks and caller IDs are deleted); the
 *   numbers themselves stay on the message as text.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sms_messages', (table) => {
    table.bigIncrements('id');
    table.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.bigInteger('phone_number_id').references('phone_numbers.id').onDelete('SET NULL');
    table.string('direction', 8).notNullable();
    table.string('from_number', 32).notNullable();
    table.string('to_number', 32).notNullable();
    table.text('body').notNullable();
    table.string('encoding', 8).notNullable();
    table.integer('segments').notNullable();
    table.bigInteger('cost_micros').notNullable().defaultTo(0);
    table.string('status', 16).notNullable();
    table.string('error_code', 16);
    table.string('error_message', 500);
    table.string('provider', 16);
    table.string('provider_message_id', 64);
    table.string('charge_key', 64);
    table.string('idempotency_key', 255);
    table.timestamps(true, true);
    table.index(['user_id', 'id']);
  });
  await knex.raw("alter table sms_messages add constraint sms_messages_direction check (direction in ('outbound', 'inbound'))");
  await knex.raw(`alter table sms_messages add constraint sms_messages_status check (status in (
    'pending', 'queued', 'sending', 'sent', 'delivered', 'undelivered', 'failed', 'received'))`);
  await knex.raw('create unique index sms_messages_provider_message_id on sms_messages (provider_message_id) where provider_message_id is not null');
  await knex.raw('create unique index sms_messages_idempotency_key on sms_messages (user_id, idempotency_key) where idempotency_key is not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sms_messages');
}
