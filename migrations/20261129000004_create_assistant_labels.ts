import type { Knex } from 'knex';

/** Labels applied to assistants; deleting either side removes the pair (anchor §12.8: the assistant stays). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('assistant_labels', (table) => {
    table.bigInteger('assistant_id').notNullable().references('assistants.id').onDelete('CASCADE');
    table.bigInteger('label_id').notNullable().references('labels.id').onDelete('CASCADE');
    table.primary(['assistant_id', 'label_id']);
    // The label filter of the assistant list and the labels' assistant counts start from the label.
    table.index(['label_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('assistant_labels');
}
