import type { Knex } from 'knex';
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
  await knex('balance_transactions')
    .insert({
      userId: input.userId,
      amountMicros: input.amountMicros,
      kind: input.kind,
      reference: input.reference ?? null,
      description: input.description ?? null,
      idempotencyKey: input.idempotencyKey,
    })
    .onConflict('idempotency_key')
    .ignore();
  return BalanceTransaction.query(knex).findOne({ idempotencyKey: input.idempotencyKey }).throwIfNotFound();
}

export async function balanceMicros(knex: Knex, userId: number): Promise<number> {
  const row = await knex('balance_transactions').where({ userId }).sum({ total: 'amount_micros' }).first() as { total: string | number | null } | undefined;
  return Number(row?.total ?? 0);
}
