import type { Knex } from 'knex';
import { canAffordCall } from './call-pricing.ts';

/** Whether the owner's balance pays for a call's first minute at their plan's price (web and phone calls alike). */
export async function ownerCanAffordCall(knex: Knex, userId: number): Promise<boolean> {
  const row = await knex('users as u')
    .join('plans as p', 'p.id', 'u.plan_id')
    .leftJoin('user_balances as b', 'b.user_id', 'u.id')
    .where('u.id', userId)
    .first<{ price: number; balance: number }>('p.call_price_per_minute_micros as price', knex.raw('coalesce(b.micros, 0) as balance'));
  return canAffordCall(Number(row.balance), Number(row.price));
}
