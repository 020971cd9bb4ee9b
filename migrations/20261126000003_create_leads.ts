import type { Knex } from 'knex';

/**
 * The people a campaign calls. A lead's secondary contacts are leads too, tied to it by `primary_lead_id` and
 * called in `contact_order` (1, 2, …; the main lead is 0) once the main lead has had all its retries; they go
 * with it when it is deleted.
 *
 * The columns from `attempts` on are the campaign workflow's: how many calls the lead has had, when it is due
 * next (null: not scheduled), and its latest call, so a replayed or restarted workflow can tell a dialed attempt
 * from one still to make.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('leads', (table) => {
    table.bigIncrements('id');
    table.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.bigInteger('campaign_id').notNullable().references('campaigns.id').onDelete('CASCADE');
    table.bigInteger('primary_lead_id').references('leads.id').onDelete('CASCADE');
    table.integer('contact_order').notNullable().defaultTo(0);
    table.string('phone_number', 16).notNullable();
    table.jsonb('variables').notNullable().defaultTo('{}');
    table.string('status', 32).notNullable().defaultTo('created');
    table.integer('attempts').notNullable().defaultTo(0);
    table.timestamp('next_attempt_at', { useTz: true });
    table.bigInteger('last_call_id').references('calls.id').onDelete('SET NULL');
    table.timestamps(true, true);
    // The list (newest first), the duplicate check and the campaign's progress and dialing queue.
    table.index(['user_id', 'id']);
    table.index(['campaign_id', 'phone_number']);
    table.index(['campaign_id', 'status', 'next_attempt_at']);
    table.index(['primary_lead_id', 'contact_order']);
    table.index(['last_call_id']);
  });
  await knex.raw(`alter table leads add constraint leads_status check (status in
    ('created', 'scheduled', 'processing', 'completed', 'rescheduled', 'reached-max-retries', 'blacklisted'))`);
  await knex.raw('alter table leads add constraint leads_contact_order check ((primary_lead_id is null) = (contact_order = 0))');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('leads');
}
