import type { Knex } from 'knex';

/**
 * A conversation's post-conversation evaluation: what the language model filled in from the assistant's
 * `post_call_schema` when the conversation went quiet (null until then, or when it was not evaluated).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('conversations', (table) => {
    table.jsonb('evaluation');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('conversations', (table) => {
    table.dropColumn('evaluation');
  });
}
