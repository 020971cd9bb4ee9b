import type { Knex } from 'knex';

/**
 * Each user's auto-recharge rule. `armed` makes it fire at most once per threshold crossing: a recharge
 * disarms it, and the balance rising back to the threshold re-arms it. The re-arming is a trigger on the
 * running balance, so every kind of credit (top-ups, refunds, adjustments) counts, wherever it is written.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('auto_recharge_settings', (table) => {
    table.bigInteger('user_id').primary().references('users.id').onDelete('CASCADE');
    table.boolean('enabled').notNullable();
    table.bigInteger('threshold_micros').notNullable();
    table.bigInteger('amount_micros').notNullable();
    table.boolean('armed').notNullable().defaultTo(true);
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`
    create function rearm_auto_recharge() returns trigger language plpgsql as $$
    begin
      update auto_recharge_settings set armed = true
        where user_id = new.user_id and not armed and new.micros >= threshold_micros;
      return new;
    end $$`);
  // Only a rising balance can cross the threshold upwards, so charges skip the lookup. A balance row is
  // inserted with a user's first entry, before any rule of theirs exists, and a new rule starts armed.
  await knex.raw(`
    create trigger user_balances_rearm_auto_recharge after update on user_balances
      for each row when (new.micros > old.micros) execute function rearm_auto_recharge()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger if exists user_balances_rearm_auto_recharge on user_balances');
  await knex.raw('drop function if exists rearm_auto_recharge()');
  await knex.schema.dropTable('auto_recharge_settings');
}
