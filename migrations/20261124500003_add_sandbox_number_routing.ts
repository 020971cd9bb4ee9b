import type { Knex } from 'knex';

/**
 * Where the sandbox carrier sends calls to a number it holds, their status changes and its messages, as a
 * carrier keeps them per number (Twilio's VoiceUrl, StatusCallback, SmsUrl): set at provisioning, changed by
 * configuring the number. Numbers provisioned before have none.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sandbox_phone_numbers', (table) => {
    table.text('voice_url');
    table.text('status_callback_url');
    table.text('sms_url');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sandbox_phone_numbers', (table) => {
    table.dropColumns('voice_url', 'status_callback_url', 'sms_url');
  });
}
