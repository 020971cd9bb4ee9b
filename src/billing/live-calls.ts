import type { Knex } from 'knex';

/**
 * An owner's calls that have not ended, whatever their kind: each holds one of the plan's concurrent-call
 * slots and a reservation on the balance until `finalizeCall` ends it.
 */
export function liveCalls(knex: Knex, userId: number): Knex.QueryBuilder {
  return knex('calls').where({ userId }).whereNull('endedAt');
}

/**
 * Locks the owner's row for the rest of the transaction, so that the calls of one owner are admitted (a slot
 * taken) and prepared (a reservation made) one after the other. `no key update`: charges and other rows
 * referring to the user are not held up by it.
 */
export async function lockCallOwner(trx: Knex.Transaction, userId: number): Promise<void> {
  await trx('users').where({ id: userId }).forNoKeyUpdate().first('id');
}
