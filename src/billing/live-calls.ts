import type { Knex } from 'knex';
import { UsageLimitError } from '../lib/errors.ts';

/** How long a caller at the concurrent-call limit is told to wait before trying again. */
export const BUSY_RETRY_SECONDS = 30;

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

/** Who is turned away at the limit: the account's owner (bearer routes), or a visitor of its widget. */
export type CallPlacer = 'owner' | 'visitor';

const busyTexts: Record<CallPlacer, (limit: number) => string> = {
  owner: (limit) => `You have ${limit} calls in progress, the most your plan allows at once. Please try again when one has ended.`,
  visitor: () => 'This assistant is taking as many calls as it can at the moment. Please try again shortly.',
};

/**
 * Takes one of the owner's concurrent-call slots (the plan's `max_calls_in_parallel`; none means no limit) for
 * a call the same transaction then inserts, or refuses with 429 and Retry-After. The owner's row stays locked
 * until the transaction ends, so two calls started at once are counted one after the other. `reservePercent`
 * of the limit (rounded down to whole calls) is kept free for other calls: a campaign's calls leave it to
 * inbound ones.
 */
export async function claimCallSlot(trx: Knex.Transaction, userId: number, placer: CallPlacer, reservePercent = 0): Promise<void> {
  await lockCallOwner(trx, userId);
  const plan = await trx('users as u').join('plans as p', 'p.id', 'u.plan_id').where('u.id', userId)
    .first<{ limit: number | null }>('p.max_calls_in_parallel as limit');
  if (plan.limit === null) return;
  const usable = plan.limit - Math.floor((plan.limit * reservePercent) / 100);
  const [live] = await liveCalls(trx, userId).count<{ count: string }[]>('id as count');
  if (Number(live?.count ?? 0) >= usable) throw new UsageLimitError(busyTexts[placer](plan.limit), BUSY_RETRY_SECONDS);
}
