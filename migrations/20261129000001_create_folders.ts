import type { Knex } from 'knex';

/** The colours a folder or label badge takes (anchor §12.8); a badge without one is null. */
const COLORS = ['gray', 'slate', 'red', 'orange', 'amber', 'green', 'teal', 'blue', 'purple', 'pink'];

/**
 * Folders group a user's assistants (anchor §12.8); an assistant is in at most one. A name is unique within its
 * owner's folders regardless of case, as the original platform's database compares it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('folders', (table) => {
    table.bigIncrements('id');
    table.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.string('name', 255).notNullable();
    table.string('color', 16);
    table.timestamps(true, true);
    table.index(['user_id', 'id']);
  });
  await knex.raw('create unique index folders_user_name_unique on folders (user_id, lower(name))');
  await knex.raw(`alter table folders add constraint folders_color check (color in (${COLORS.map((color) => `'${color}'`).join(', ')}))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('folders');
}
