import type { Knex } from 'knex';

/**
 * Text conversations with an assistant (web widget or test). `message_count` and `total_cost_micros` are
 * kept in the transaction that adds a message, so listing never has to aggregate.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('conversations', (table) => {
    table.bigIncrements('id');
    table.uuid('uuid').notNullable().unique();
    table.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.bigInteger('assistant_id').notNullable().references('assistants.id').onDelete('CASCADE');
    table.string('type', 16).notNullable();
    table.jsonb('variables').notNullable().defaultTo('{}');
    table.integer('message_count').notNullable().defaultTo(0);
    table.bigInteger('total_cost_micros').notNullable().defaultTo(0);
    table.timestamp('ended_at', { useTz: true });
    table.timestamps(true, true);
    table.index(['user_id', 'id']);
    table.index(['assistant_id', 'id']);
  });
  await knex.raw("alter table conversations add constraint conversations_type check (type in ('widget', 'test'))");

  await knex.schema.createTable('conversation_messages', (table) => {
    table.bigIncrements('id');
    table.bigInteger('conversation_id').notNullable().references('conversations.id').onDelete('CASCADE');
    table.string('role', 16).notNullable();
    table.text('content').notNullable();
    table.jsonb('function_calls');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index(['conversation_id', 'id']);
  });
  await knex.raw("alter table conversation_messages add constraint conversation_messages_role check (role in ('user', 'assistant'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('conversation_messages');
  await knex.schema.dropTable('conversations');
}
