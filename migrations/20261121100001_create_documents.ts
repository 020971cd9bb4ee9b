import type { Knex } from 'knex';

/**
 * Documents of a knowledge base. `status` moves processing → active | failed, written by the ingestion
 * workflow; `error` holds the reason of a failure. Website documents keep their start URLs, file documents
 * the storage key of their upload.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('documents', (table) => {
    table.bigIncrements('id');
    table.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.bigInteger('knowledgebase_id').notNullable().references('knowledgebases.id').onDelete('CASCADE');
    table.string('name', 255).notNullable();
    table.string('description', 255);
    table.string('type', 16).notNullable();
    table.string('status', 16).notNullable().defaultTo('processing');
    table.text('error');
    table.jsonb('urls');
    table.integer('relative_links_limit');
    table.string('file_key', 512);
    table.string('file_name', 255);
    table.bigInteger('file_size');
    table.timestamps(true, true);
    table.index(['knowledgebase_id', 'id']);
    table.index(['user_id', 'id']);
  });
  await knex.raw("alter table documents add constraint documents_type check (type in ('website', 'pdf', 'txt', 'docx'))");
  await knex.raw("alter table documents add constraint documents_status check (status in ('processing', 'active', 'failed'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('documents');
}
