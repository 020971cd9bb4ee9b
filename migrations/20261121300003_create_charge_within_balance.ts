import type { Knex } from 'knex';

/**
 * The ledger's one rule for spending, as a function so that a charge can be part of a larger statement (a
 * chat message is stored and charged in one round trip). It returns the id of the entry that stands for the
 * key, or null, writing nothing, when the balance does not cover the amount. The running balance row is
 * locked first, so concurrent charges are checked one after another and can never together overdraw; a
 * retried key returns its entry without charging again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function charge_within_balance(
      p_user_id bigint, p_amount_micros bigint, p_kind text, p_reference text, p_description text, p_idempotency_key text
    ) returns bigint language plpgsql as $$
    declare
      available bigint;
      entry_id bigint;
    begin
      select micros into available from user_balances where user_id = p_user_id for update;
      select id into entry_id from balance_transactions where idempotency_key = p_idempotency_key;
      if entry_id is not null then
        return entry_id;
      end if;
      if coalesce(available, 0) < p_amount_micros then
        return null;
      end if;
      insert into balance_transactions (user_id, amount_micros, kind, reference, description, idempotency_key)
        values (p_user_id, -p_amount_micros, p_kind, p_reference, p_description, p_idempotency_key)
        returning id into entry_id;
      return entry_id;
    end $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop function if exists charge_within_balance(bigint, bigint, text, text, text, text)');
}
