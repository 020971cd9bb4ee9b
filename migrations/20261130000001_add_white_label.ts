import type { Knex } from 'knex';

/**
 * White-label platforms (anchor §3.4–3.5): an admin is a user the operator flags (`user:white-label-admin`);
 * its platform is the users whose `white_label_owner_id` names it, the ones it registered. Deleting the admin
 * leaves its users as ordinary accounts. The index serves the platform's user list and every scoped lookup.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (table) => {
    table.boolean('white_label_admin').notNullable().defaultTo(false);
    table.bigInteger('white_label_owner_id').references('users.id').onDelete('SET NULL');
    table.index(['white_label_owner_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (table) => {
    table.dropColumn('white_label_owner_id');
    table.dropColumn('white_label_admin');
  });
}
