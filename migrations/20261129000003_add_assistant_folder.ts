import type { Knex } from 'knex';

/**
 * The folder an assistant is in; null: uncategorized. Deleting the folder leaves its assistants uncategorized
 * (anchor §12.8). The index serves the folder filter of the assistant list and the folders' assistant counts.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('assistants', (table) => {
    table.bigInteger('folder_id').references('folders.id').onDelete('SET NULL');
    table.index(['folder_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('assistants', (table) => {
    table.dropColumn('folder_id');
  });
}
