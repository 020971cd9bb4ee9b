import type { Knex } from 'knex';
import { BalanceTransaction } from './balance-transaction.ts';

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
 * The SQL expression that takes `amountMicros` from the user's balance (migration 20261121300003): it yields
 * the id of the entry that stands for the key, or null, writing nothing, when the balance does not cover the
 * amount. Concurrent charges are checked one after another and can never together overdraw; a retried key
 * returns its entry. Embed it where the charge must be atomic with other writes of the same statement; the user
 * may be a column of that statement.
 */
export function chargeExpression(knex: Knex, input: Omit<LedgerEntryInput, 'userId'> & { userId: number | Knex.Raw }): Knex.Raw {
  return knex.raw('charge_within_balance(?, ?, ?, ?, ?, ?)', [
    input.userId, input.amountMicros, input.kind, input.reference ?? null, input.description ?? null, input.idempotencyKey,
  ]);
}

/** The user's balance: the sum of their ledger entries, kept current by the ledger's trigger. */
export async function balanceMicros(knex: Knex, userId: number): Promise<number> {
  const row = await knex('user_balances').where({ userId }).first<{ micros: number } | undefined>('micros');
  return row?.micros ?? 0;
}
