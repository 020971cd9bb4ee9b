import type { Knex } from 'knex';
import { CallUnaffordableError } from '../lib/errors.ts';
import { callBudget } from './call-affordability.ts';
import { extendedReservation, firstReservation, type CallLimitReason } from './call-pricing.ts';
import { lockCallOwner } from './live-calls.ts';

/** The columns that hold a call's reservation (docs/decisions.md, "Calls reserve the balance a minute at a time"). */
export interface ReservationColumns {
  maxSeconds: number;
  maxDurationSeconds: number;
  limitReason: CallLimitReason;
  reservedMicros: number;
  pricePerMinuteMicros: number;
}

/**
 * The reservation a new call of `assistantId` is created with: its first minute out of what the owner's balance
 * leaves beside their live calls' reservations, at the plan's price, its limit the assistant's
 * max_call_duration. For the transaction that inserts the call, with the owner's row already locked
 * (claimCallSlot), so calls started at once reserve one after the other and one that would not be paid for is
 * refused before it exists (CallUnaffordableError, the contract's 422), never accepted and failed later.
 */
export async function reserveNewCall(trx: Knex.Transaction, userId: number, assistantId: number): Promise<ReservationColumns> {
  const assistant = await trx('assistants').where({ id: assistantId }).first<{ maxDuration: number } | undefined>('max_duration');
  const reserved = assistant ? await firstReservationOf(trx, userId, assistant.maxDuration) : undefined;
  if (!reserved) throw new CallUnaffordableError();
  return reserved;
}

/**
 * A first reservation for a call of `userId` lasting at most `maxDurationSeconds`, the owner's row locked by the
 * caller; undefined when the balance does not pay for its first minute. `exceptCallId` is the call itself, when
 * its row exists (a call created before reservations were made at creation, prepared by its workflow).
 */
export async function firstReservationOf(trx: Knex.Transaction, userId: number, maxDurationSeconds: number, exceptCallId?: number): Promise<ReservationColumns | undefined> {
  const budget = await callBudget(trx, userId, exceptCallId);
  const price = budget.pricePerMinuteMicros;
  const reservation = firstReservation(maxDurationSeconds, budget.balanceMicros - budget.reservedMicros, price);
  return reservation ? { ...reservation, maxDurationSeconds, pricePerMinuteMicros: price } : undefined;
}

interface ReservedCall {
  userId: number;
  maxSeconds: number | null;
  maxDurationSeconds: number | null;
  pricePerMinuteMicros: number | null;
  endedAt: Date | null;
}

/**
 * Reserves up to another minute for a live call, out of what its owner's balance leaves beside their other live
 * calls' reservations, under the owner's lock (billing/call-pricing.ts `extendedReservation`). Answers the
 * seconds the call may now last, or undefined when it is over, has no reservation to extend (it reserved its
 * whole limit), or nothing more could be reserved: it then ends when what it holds runs out.
 */
export async function extendCallReservation(knex: Knex, callId: number): Promise<number | undefined> {
  return knex.transaction(async (trx) => {
    const owner = await trx('calls').where({ id: callId }).first<{ userId: number } | undefined>('userId');
    if (!owner) return undefined;
    await lockCallOwner(trx, owner.userId);
    // Read under the lock: the reservation another extension or the call's end may just have changed.
    const call = await trx('calls').where({ id: callId })
      .first<ReservedCall | undefined>('userId', 'maxSeconds', 'maxDurationSeconds', 'pricePerMinuteMicros', 'endedAt');
    if (!call || call.endedAt || call.maxSeconds === null || call.maxDurationSeconds === null || call.pricePerMinuteMicros === null) return undefined;
    const budget = await callBudget(trx, call.userId, callId);
    const next = extendedReservation(call.maxSeconds, call.maxDurationSeconds, budget.balanceMicros - budget.reservedMicros, Number(call.pricePerMinuteMicros));
    if (!next) return undefined;
    await trx('calls').where({ id: callId }).update({ ...next, updatedAt: trx.fn.now() });
    return next.maxSeconds;
  });
}
