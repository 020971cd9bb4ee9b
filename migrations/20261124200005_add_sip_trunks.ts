import type { Knex } from 'knex';

/**
 * SIP trunk details of numbers of type `sip`. The password is ciphertext of the app key's secret box
 * (lib/secrets.ts) and is never returned. One trunk per phone number, username and address across all
 * accounts: inbound calls are routed by them, so two rows alike could not both receive.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('phone_numbers', (table) => {
    table.string('sip_trunk_type', 16);
    table.string('sip_username', 128);
    table.text('sip_password');
    table.string('sip_address', 255);
    table.string('sip_calling_format', 8);
    table.string('inbound_authorization_type', 4);
    table.jsonb('allowed_inbound_ips');
    table.boolean('outbound_proxy');
    table.string('inbound_trunk_id', 128);
    table.string('outbound_trunk_id', 128);
  });
  await knex.raw(`alter table phone_numbers
    add constraint phone_numbers_sip_trunk_type check (sip_trunk_type in ('extension', 'number')),
    add constraint phone_numbers_sip_calling_format check (sip_calling_format in ('+e164', 'e164', 'national')),
    add constraint phone_numbers_inbound_authorization_type check (inbound_authorization_type in ('auth', 'ip'))`);
  await knex.raw("create unique index phone_numbers_sip_trunk_unique on phone_numbers (phone_number, sip_username, lower(sip_address)) where type = 'sip'");
}

export async function down(knex: Knex): Promise<void> {
  // Dropping the columns drops their checks and indexes with them.
  await knex.schema.alterTable('phone_numbers', (table) => {
    table.dropColumns(
      'sip_trunk_type', 'sip_username', 'sip_password', 'sip_address', 'sip_calling_format', 'inbound_authorization_type',
      'allowed_inbound_ips', 'outbound_proxy', 'inbound_trunk_id', 'outbound_trunk_id',
    );
  });
}
