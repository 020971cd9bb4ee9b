import type { Knex } from 'knex';

/**
 * Outbound campaigns: the assistant that calls, the calling window in the campaign's time zone, parallelism and
 * the retry policy (anchor §7.1). Hours are kept as `HH:MM:SS` text, as the API answers them; `retry_interval` is
 * in minutes. Deleting the assistant leaves the campaign without one (it cannot be started until it has one
 * again) rather than deleting the campaign's leads with it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('campaigns', (table) => {
    table.bigIncrements('id');
    table.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.bigInteger('assistant_id').references('assistants.id').onDelete('SET NULL');
    table.string('name', 255).notNullable();
    table.string('status', 32).notNullable().defaultTo('draft');
    table.string('timezone', 64).notNullable();
    table.integer('max_calls_in_parallel').notNullable().defaultTo(3);
    table.string('allowed_hours_start_time', 8).notNullable().defaultTo('00:00:00');
    table.string('allowed_hours_end_time', 8).notNullable().defaultTo('23:59:00');
    table.jsonb('allowed_days').notNullable();
    table.integer('max_retries').notNullable().defaultTo(3);
    table.integer('retry_interval').notNullable().defaultTo(60);
    table.boolean('retry_on_voicemail').notNullable().defaultTo(false);
    table.boolean('retry_on_goal_incomplete').notNullable().defaultTo(false);
    table.string('goal_completion_variable', 255);
    table.boolean('mark_complete_when_no_leads').notNullable().defaultTo(true);
    table.timestamps(true, true);
    table.index(['user_id', 'id']);
    table.index(['assistant_id']);
  });
  await knex.raw("alter table campaigns add constraint campaigns_status check (status in ('draft', 'in-progress', 'stopped', 'completed'))");
  await knex.raw('alter table campaigns add constraint campaigns_parallel check (max_calls_in_parallel >= 1)');
  await knex.raw('alter table campaigns add constraint campaigns_retries check (max_retries between 1 and 5)');
  await knex.raw('alter table campaigns add constraint campaigns_retry_interval check (retry_interval between 10 and 4320)');
  const time = "'^([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$'";
  await knex.raw(`alter table campaigns add constraint campaigns_hours check (allowed_hours_start_time ~ ${time} and allowed_hours_end_time ~ ${time})`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('campaigns');
}
