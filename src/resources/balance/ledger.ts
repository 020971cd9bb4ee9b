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
 * cover it. The user's running balance row is locked first, so concurrent charges are checked one after
 * another and can never together drive the balance below zero (a user without the row has nothing to spend);
 * a retry with the same key returns the entry already written. Must run inside a transaction.
 */
export async function chargeWithinBalance(trx: Knex.Transaction, input: LedgerEntryInput): Promise<BalanceTransaction> {
  const row = await trx('user_balances').where({ userId: input.userId }).forUpdate().first<{ micros: number } | undefined>('micros');
  if ((row?.micros ?? 0) < input.amountMicros) {
    const retried = await BalanceTransaction.query(trx).findOne({ idempotencyKey: input.idempotencyKey });
    if (retried) return retried;
    throw new InsufficientBalanceError();
  }
  return recordEntry(trx, { ...input, amountMicros: -input.amountMicros });
}

/** The user's balance: the sum of their ledger entries, kept current by the ledger's trigger. */
export async function balanceMicros(knex: Knex, userId: number): Promise<number> {
  const row = await knex('user_balances').where({ userId }).first<{ micros: number } | undefined>('micros');
  return row?.micros ?? 0;
}
