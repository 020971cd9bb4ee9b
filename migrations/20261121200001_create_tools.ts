import type { Knex } from 'knex';

/**
 * Mid-call HTTP tools. `headers` holds `[{name, value}]` with each value encrypted by the app key;
 * `schema` holds the parameters the model extracts. A tool's name is its function name for the model, so it
 * is unique per user.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('tools', (table) => {
    table.bigIncrements('id');
    table.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.string('name', 64).notNullable();
    table.string('description', 255).notNullable();
    table.string('endpoint', 2048).notNullable();
    table.string('method', 8).notNullable();
    table.integer('timeout').notNullable().defaultTo(10);
    table.jsonb('headers').notNullable().defaultTo('[]');
    table.jsonb('schema').notNullable().defaultTo('[]');
    table.timestamps(true, true);
    table.unique(['user_id', 'name']);
    table.index(['user_id', 'id']);
  });
  await knex.raw("alter table tools add constraint tools_method check (method in ('GET', 'POST', 'PUT', 'PATCH', 'DELETE'))");
  await knex.raw('alter table tools add constraint tools_timeout check (timeout between 1 and 30)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('tools');
}
