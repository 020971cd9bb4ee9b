import type { Knex } from 'knex';

/** Plans and their limits; a null limit means unlimited. Operators add or change rows. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('plans', (table) => {
    table.string('id', 64).primary();
    table.string('name', 255).notNullable();
    table.integer('mid_call_tools');
    table.integer('assistants');
    table.integer('campaigns');
    table.integer('knowledgebases');
    table.integer('max_calls_in_parallel');
    table.boolean('is_default').notNullable().defaultTo(false);
    table.timestamps(true, true);
  });
  await knex.raw('create unique index plans_one_default on plans (is_default) where is_default');
  await knex('plans').insert({
    id: 'default',
    name: 'Default',
    mid_call_tools: 5,
    assistants: 20,
    campaigns: 20,
    knowledgebases: 10,
    max_calls_in_parallel: 10,
    is_default: true,
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('plans');
}
