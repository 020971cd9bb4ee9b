import type { Knex } from 'knex';

/**
 * The assistant's identity and ownership. Its settings (voice, model, prompts, call behaviour, webhooks)
 * are added by the migration that follows, with the assistants resource.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('assistants', (table) => {
    table.bigIncrements('id');
    table.uuid('uuid').notNullable().unique();
    table.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.string('name', 255).notNullable();
    table.bigInteger('knowledgebase_id').references('knowledgebases.id').onDelete('SET NULL');
    table.timestamps(true, true);
    table.index(['user_id', 'id']);
    table.index(['knowledgebase_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('assistants');
}
