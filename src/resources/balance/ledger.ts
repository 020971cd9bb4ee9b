import type { Knex } from 'knex';
import { InsufficientBalanceError } from '../../lib/errors.ts';
import { BalanceTransaction } from './model.ts';

export type LedgerKind = 'signup_credit' | 'adjustment';

export interface LedgerEntryInput {
  userId: number;
  amountMicros: number;
  kind: LedgerKind | (string & {});
  reference?: string | null;
  description?: string | null;
  /** The same key is written once: a retried credit or charge never counts twice. */
  idempotencyKey: string;
}

/** Writes an entry unless one with the same idempotency key exists; returns the entry that stands. */
export async function recordEntry(knex: Knex, input: LedgerEntryInput): Promise<BalanceTransaction> {
  const written = await knex('balance_transactions')
    .insert({
      userId: input.userId,
      amountMicros: input.amountMicros,
      kind: input.kind,
      reference: input.reference ?? null,
      description: input.description ?? null,
      idempotencyKey: input.idempotencyKey,
    })
    .onConflict('idempotency_key')
    .ignore()
    .returning<Record<string, unknown>[]>('*');
  if (written[0]) return BalanceTransaction.fromJson(written[0], { skipValidation: true });
  return BalanceTransaction.query(knex).findOne({ idempotencyKey: input.idempotencyKey }).throwIfNotFound();
}

/**
 * Takes `amountMicros` from the user's balance, or refuses without writing anything when the balance does not
 * cover it. The user's row is locked first, so concurrent charges are checked one after another and can
 * never together drive the balance below zero; a retry with the same key returns the entry already written.
 * Must run inside a transaction. Two statements on the usual path: this runs on every charged chat message.
 */
export async function chargeWithinBalance(trx: Knex.Transaction, input: LedgerEntryInput): Promise<BalanceTransaction> {
  const { rows } = await trx.raw<{ rows: { balance: string | number }[] }>(
    `select (select coalesce(sum(amount_micros), 0) from balance_transactions where user_id = users.id) as balance
       from users where id = ? for update`,
    [input.userId],
  );
  if (Number(rows[0]?.balance ?? 0) < input.amountMicros) {
    const retried = await BalanceTransaction.query(trx).findOne({ idempotencyKey: input.idempotencyKey });
    if (retried) return retried;
    throw new InsufficientBalanceError();
  }
  return recordEntry(trx, { ...input, amountMicros: -input.amountMicros });
}

export async function balanceMicros(knex: Knex, userId: number): Promise<number> {
  const row = await knex('balance_transactions').where({ userId }).sum({ total: 'amount_micros' }).first() as { total: string | number | null } | undefined;
  return Number(row?.total ?? 0);
}
