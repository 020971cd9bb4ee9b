import type { Knex } from 'knex';

/**
 * Human takeover and AI replies for other channels (anchor §12.5, §12.6): a conversation's AI can be switched off
 * while a person answers (`ai_enabled`), an operator's message is marked `human`, and `api` conversations are
 * found by their assistant and the integration's customer identifier (one conversation per pair: the unique
 * index, whose nulls never collide, leaves widget and test conversations alone).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('conversations', (table) => {
    table.boolean('ai_enabled').notNullable().defaultTo(true);
    table.string('external_identifier', 255);
    table.unique(['assistant_id', 'external_identifier']);
  });
  await knex.raw('alter table conversations drop constraint conversations_type');
  await knex.raw("alter table conversations add constraint conversations_type check (type in ('widget', 'test', 'api'))");
  await knex.schema.alterTable('conversation_messages', (table) => {
    table.boolean('human').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('conversation_messages', (table) => {
    table.dropColumn('human');
  });
  await knex('conversations').where({ type: 'api' }).delete();
  await knex.raw('alter table conversations drop constraint conversations_type');
  await knex.raw("alter table conversations add constraint conversations_type check (type in ('widget', 'test'))");
  await knex.schema.alterTable('conversations', (table) => {
    table.dropUnique(['assistant_id', 'external_identifier']);
    table.dropColumn('external_identifier');
    table.dropColumn('ai_enabled');
  });
}
