import type { Knex } from 'knex';

/**
 * The running balance of each user, kept by a trigger on every ledger entry, so reading a balance (on every
 * charged chat message) costs one row instead of a sum over the user's whole history. The ledger stays the
 * record; this is derived from it in the same transaction and can be rebuilt from it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('user_balances', (table) => {
    table.bigInteger('user_id').primary().references('users.id').onDelete('CASCADE');
    table.bigInteger('micros').notNullable().defaultTo(0);
  });
  await knex.raw(`
    create function apply_balance_transaction() returns trigger language plpgsql as $$
    begin
      insert into user_balances (user_id, micros) values (new.user_id, new.amount_micros)
        on conflict (user_id) do update set micros = user_balances.micros + excluded.micros;
      return new;
    end $$`);
  await knex.raw(`
    create trigger balance_transactions_apply after insert on balance_transactions
      for each row execute function apply_balance_transaction()`);
  await knex.raw(`
    insert into user_balances (user_id, micros)
      select user_id, sum(amount_micros) from balance_transactions group by user_id`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger if exists balance_transactions_apply on balance_transactions');
  await knex.raw('drop function if exists apply_balance_transaction()');
  await knex.schema.dropTable('user_balances');
}
