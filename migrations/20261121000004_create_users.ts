import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (table) => {
    table.bigIncrements('id');
    table.string('name', 255).notNullable();
    table.string('email', 255).notNullable();
    // Null for accounts made by an operator without a password: they use API keys only.
    table.string('password_hash', 255);
    table.string('timezone', 64).notNullable().defaultTo('UTC');
    table.string('plan_id', 64).notNullable().references('plans.id');
    table.timestamps(true, true);
  });
  await knex.raw('create unique index users_email_lower_unique on users (lower(email))');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('users');
}
