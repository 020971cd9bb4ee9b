import type { Knex } from 'knex';

/** Knowledge bases; `status` is derived from their documents and rewritten on every document change. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('knowledgebases', (table) => {
    table.bigIncrements('id');
    table.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.string('name', 255).notNullable();
    table.string('description', 1000);
    table.string('status', 16).notNullable().defaultTo('empty');
    table.timestamps(true, true);
    table.index(['user_id', 'id']);
  });
  await knex.raw("alter table knowledgebases add constraint knowledgebases_status check (status in ('empty', 'processing', 'active', 'failed'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('knowledgebases');
}
