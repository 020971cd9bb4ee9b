import type { Knex } from 'knex';

/**
 * WhatsApp (anchor §12.7, §13.3): a user's senders, each one of the user's numbers with the assistant that
 * answers its inbound messages, a signing secret (encrypted with the app key) and an optional read-receipt
 * webhook URL; each sender's message templates; every message sent or received, with the carrier's id and
 * status. A WhatsApp chat is a conversation of type `whatsapp`, one per (sender, customer phone), which keeps
 * when the customer last wrote (the 24-hour session window runs from it). A webhook delivery may belong to a
 * sender (read receipts) instead of an assistant.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('whatsapp_senders', (table) => {
    table.bigIncrements('id');
    table.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.bigInteger('phone_number_id').notNullable().unique().references('phone_numbers.id').onDelete('CASCADE');
    table.bigInteger('assistant_id').notNullable().references('assistants.id').onDelete('CASCADE');
    table.string('phone_number', 32).notNullable();
    table.string('display_name', 255).notNullable();
    table.string('status', 16).notNullable().defaultTo('online');
    table.string('quality_rating', 16).notNullable().defaultTo('high');
    table.integer('messaging_limit');
    table.text('signing_secret').notNullable();
    table.string('webhook_url', 2048);
    table.timestamps(true, true);
    table.index(['user_id', 'id']);
    table.index(['phone_number']);
  });
  await knex.raw("alter table whatsapp_senders add constraint whatsapp_senders_status check (status in ('online', 'offline'))");
  await knex.raw("alter table whatsapp_senders add constraint whatsapp_senders_quality check (quality_rating in ('high', 'medium', 'low', 'unknown'))");

  await knex.schema.createTable('whatsapp_templates', (table) => {
    table.bigIncrements('id');
    table.bigInteger('sender_id').notNullable().references('whatsapp_senders.id').onDelete('CASCADE');
    table.string('name', 255).notNullable();
    table.string('language', 16).notNullable();
    table.string('category', 32).notNullable();
    table.string('status', 16).notNullable();
    table.text('body_text').notNullable();
    table.string('content_sid', 64);
    table.timestamps(true, true);
    table.unique(['sender_id', 'name', 'language']);
  });
  await knex.raw("alter table whatsapp_templates add constraint whatsapp_templates_status check (status in ('approved', 'pending', 'rejected'))");

  await knex.schema.alterTable('conversations', (table) => {
    table.bigInteger('whatsapp_sender_id').references('whatsapp_senders.id').onDelete('CASCADE');
    table.string('customer_phone', 32);
    table.string('customer_name', 255);
    table.timestamp('last_customer_message_at', { useTz: true });
    table.unique(['whatsapp_sender_id', 'customer_phone']);
  });
  await knex.raw('alter table conversations drop constraint conversations_type');
  await knex.raw("alter table conversations add constraint conversations_type check (type in ('widget', 'test', 'api', 'whatsapp'))");

  await knex.schema.createTable('whatsapp_messages', (table) => {
    table.bigIncrements('id');
    table.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.bigInteger('sender_id').references('whatsapp_senders.id').onDelete('SET NULL');
    table.bigInteger('conversation_id').references('conversations.id').onDelete('SET NULL');
    table.bigInteger('template_id').references('whatsapp_templates.id').onDelete('SET NULL');
    table.string('direction', 16).notNullable();
    table.string('from_number', 32).notNullable();
    table.string('to_number', 32).notNullable();
    table.text('body').notNullable();
    table.bigInteger('cost_micros').notNullable().defaultTo(0);
    table.string('status', 16).notNullable();
    table.string('error_code', 16);
    table.text('error_message');
    table.string('provider', 16).notNullable();
    table.string('provider_message_id', 64).unique();
    table.timestamps(true, true);
    table.index(['user_id', 'id']);
    table.index(['conversation_id', 'id']);
  });

  await knex.schema.alterTable('webhook_deliveries', (table) => {
    table.bigInteger('whatsapp_sender_id').references('whatsapp_senders.id').onDelete('SET NULL');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_deliveries', (table) => {
    table.dropColumn('whatsapp_sender_id');
  });
  await knex.schema.dropTable('whatsapp_messages');
  await knex('conversations').where({ type: 'whatsapp' }).delete();
  await knex.raw('alter table conversations drop constraint conversations_type');
  await knex.raw("alter table conversations add constraint conversations_type check (type in ('widget', 'test', 'api'))");
  await knex.schema.alterTable('conversations', (table) => {
    table.dropUnique(['whatsapp_sender_id', 'customer_phone']);
    table.dropColumn('last_customer_message_at');
    table.dropColumn('customer_name');
    table.dropColumn('customer_phone');
    table.dropColumn('whatsapp_sender_id');
  });
  await knex.schema.dropTable('whatsapp_templates');
  await knex.schema.dropTable('whatsapp_senders');
}
