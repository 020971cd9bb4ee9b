import type { Knex } from 'knex';

/** The colours a folder or label badge takes (anchor §12.8); a badge without one is null. */
const COLORS = ['gray', 'slate', 'red', 'orange', 'amber', 'green', 'teal', 'blue', 'purple', 'pink'];

/**
 * Labels tag a user's assistants across folders (anchor §12.8); an assistant has any number of them. A name is
 * unique within its owner's labels regardless of case, as for folders.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('labels', (table) => {
    table.bigIncrements('id');
    table.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.string('name', 255).notNullable();
    table.string('color', 16);
    table.timestamps(true, true);
    table.index(['user_id', 'id']);
  });
  await knex.raw('create unique index labels_user_name_unique on labels (user_id, lower(name))');
  await knex.raw(`alter table labels add constraint labels_color check (color in (${COLORS.map((color) => `'${color}'`).join(', ')}))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('labels');
}
