import type { Knex } from 'knex';

/** Mid-call tools attached to assistants; deleting either side detaches them. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('assistant_tools', (table) => {
    table.bigInteger('assistant_id').notNullable().references('assistants.id').onDelete('CASCADE');
    table.bigInteger('tool_id').notNullable().references('tools.id').onDelete('CASCADE');
    table.primary(['assistant_id', 'tool_id']);
    table.index(['tool_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('assistant_tools');
}
