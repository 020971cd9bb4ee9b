import type { Knex } from 'knex';
import { canAffordCall } from './call-pricing.ts';
import { liveCalls } from './live-calls.ts';

/** What a new call of the owner can spend: the balance, what the owner's live calls hold of it, the plan's price. */
export interface CallBudget {
  balanceMicros: number;
  reservedMicros: number;
  pricePerMinuteMicros: number;
}

/**
 * The owner's call budget, read in one statement so the balance and the reservations are of one moment: a call
 * finalized meanwhile (its charge written and its reservation released in one transaction) is seen either
 * live or charged, never neither. `exceptCallId` leaves out the call being prepared.
 */
export async function callBudget(knex: Knex, userId: number, exceptCallId?: number): Promise<CallBudget> {
  const others = liveCalls(knex, userId).select(knex.raw('coalesce(sum(reserved_micros), 0)'));
  if (exceptCallId !== undefined) others.whereNot({ id: exceptCallId });
  const row = await knex('users as u')
    .join('plans as p', 'p.id', 'u.plan_id')
    .leftJoin('user_balances as b', 'b.user_id', 'u.id')
    .where('u.id', userId)
    .first<{ price: string; balance: string; reserved: string }>(
      'p.call_price_per_minute_micros as price', knex.raw('coalesce(b.micros, 0) as balance'), others.as('reserved'),
    );
  return { balanceMicros: Number(row.balance), reservedMicros: Number(row.reserved), pricePerMinuteMicros: Number(row.price) };
}

/**
 * Whether what the owner's balance leaves beside their live calls pays for a call's first minute at their
 * plan's price (web and phone calls alike). A quick answer for the API; `prepareCall` decides under a lock.
 */
export async function ownerCanAffordCall(knex: Knex, userId: number): Promise<boolean> {
  const budget = await callBudget(knex, userId);
  return canAffordCall(budget.balanceMicros - budget.reservedMicros, budget.pricePerMinuteMicros);
}

/**
 * Whether the owner's balance itself pays for a call's first minute, whatever their live calls hold of it: those
 * reservations come back as the calls end, so a campaign waits for them rather than stopping.
 */
export async function balancePaysForACall(knex: Knex, userId: number): Promise<boolean> {
  const budget = await callBudget(knex, userId);
  return canAffordCall(budget.balanceMicros, budget.pricePerMinuteMicros);
}
