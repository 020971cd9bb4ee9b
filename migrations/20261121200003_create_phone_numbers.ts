import type { Knex } from 'knex';

/**
 * Numbers a user owns: bought (`normal`), brought over SIP (`sip`) or verified for caller ID only
 * (`caller_id`, which can place calls but not receive them).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('phone_numbers', (table) => {
    table.bigIncrements('id');
    table.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.string('phone_number', 32).notNullable();
    table.string('country_code', 2).notNullable();
    table.string('type', 16).notNullable().defaultTo('normal');
    table.boolean('sms_capable').notNullable().defaultTo(false);
    table.string('nickname', 50);
    table.timestamps(true, true);
    table.index(['user_id', 'id']);
    table.index(['phone_number']);
  });
  await knex.raw("alter table phone_numbers add constraint phone_numbers_type check (type in ('normal', 'sip', 'caller_id'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('phone_numbers');
}
