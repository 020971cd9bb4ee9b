/**
 * How a call is priced: by the started second, at a per-minute price in integer micro-dollars. Pure, so the
 * rounding is tested on its own; the lifecycle activities apply it.
 */

const MS_PER_SECOND = 1000;
const SECONDS_PER_MINUTE = 60;

/** The whole seconds from `from` to `to`, counting a second that has begun: 0 ms is 0, 1 ms is 1, 1000 ms is 1. */
export function startedSeconds(from: Date, to: Date): number {
  const elapsed = to.getTime() - from.getTime();
  return elapsed <= 0 ? 0 : Math.ceil(elapsed / MS_PER_SECOND);
}

/**
 * What `seconds` of a call cost at `perMinuteMicros` a minute. A second is a sixtieth of the price; where that
 * leaves a fraction of a micro-dollar, the sum is rounded up once (never per second), so the caller pays at
 * most a micro-dollar more than the exact amount and a call is never free by rounding.
 */
export function callCostMicros(seconds: number, perMinuteMicros: number): number {
  if (!Number.isInteger(seconds) || seconds < 0) throw new RangeError(`not a number of seconds: ${seconds}`);
  if (!Number.isInteger(perMinuteMicros) || perMinuteMicros < 0) throw new RangeError(`not a price: ${perMinuteMicros}`);
  return Math.ceil((seconds * perMinuteMicros) / SECONDS_PER_MINUTE);
}

/** The whole seconds a balance pays for at the price: `Infinity` when calls are free, 0 for an empty balance. */
export function affordableSeconds(balanceMicros: number, perMinuteMicros: number): number {
  if (balanceMicros <= 0) return 0;
  if (perMinuteMicros <= 0) return Infinity;
  return Math.floor((balanceMicros * SECONDS_PER_MINUTE) / perMinuteMicros);
}

/** A call needs a balance that pays for at least its first minute; less is refused before it starts. */
export const MINIMUM_CALL_SECONDS = 60;

export function canAffordCall(balanceMicros: number, perMinuteMicros: number): boolean {
  return affordableSeconds(balanceMicros, perMinuteMicros) >= MINIMUM_CALL_SECONDS;
}

/**
 * Why a call may not last longer than its `max_seconds` now: the assistant's max_call_duration, or what it has
 * reserved of the balance so far (more may be reserved while it lasts).
 */
export type CallLimitReason = 'max_call_duration' | 'balance';

/** What a call holds of its owner's balance while it is live: `maxSeconds` at its price, the most it can cost so far. */
export interface CallReservation {
  maxSeconds: number;
  limitReason: CallLimitReason;
  reservedMicros: number;
}

/** A live call reserves this much at a time: its first minute, then a minute more while it lasts. */
export const RESERVATION_SECONDS = 60;

function reservation(maxSeconds: number, maxDurationSeconds: number, perMinuteMicros: number): CallReservation {
  return {
    maxSeconds,
    limitReason: maxSeconds >= maxDurationSeconds ? 'max_call_duration' : 'balance',
    reservedMicros: callCostMicros(maxSeconds, perMinuteMicros),
  };
}

/**
 * A new call's reservation: its first minute (all of its max_call_duration when that is shorter, or when calls
 * are free), out of `spendableMicros`, what the balance leaves once the owner's other live calls' reservations
 * are set aside. Undefined when that does not pay for a first minute: the call is refused.
 */
export function firstReservation(maxDurationSeconds: number, spendableMicros: number, perMinuteMicros: number): CallReservation | undefined {
  if (!canAffordCall(spendableMicros, perMinuteMicros)) return undefined;
  const maxSeconds = perMinuteMicros <= 0 ? maxDurationSeconds : Math.min(maxDurationSeconds, RESERVATION_SECONDS);
  return reservation(maxSeconds, maxDurationSeconds, perMinuteMicros);
}

/**
 * A live call's next reservation: up to RESERVATION_SECONDS more than the `reservedSeconds` it holds, never past
 * its max_call_duration, and never costing more than `spendableMicros` (the balance less the other live calls'
 * reservations; its own is replaced). So the reservations of calls live at once never add up to more than the
 * balance. Undefined when nothing more can be reserved.
 */
export function extendedReservation(reservedSeconds: number, maxDurationSeconds: number, spendableMicros: number, perMinuteMicros: number): CallReservation | undefined {
  const maxSeconds = Math.min(maxDurationSeconds, reservedSeconds + RESERVATION_SECONDS, affordableSeconds(spendableMicros, perMinuteMicros));
  return maxSeconds > reservedSeconds ? reservation(maxSeconds, maxDurationSeconds, perMinuteMicros) : undefined;
}

/**
 * The seconds a call is billed for: its duration, but never past its time limit. The engine ends a call at
 * its limit with a short goodbye; those seconds are not charged, so a call never costs more than it reserved.
 * A call never prepared (no limit) is billed its duration.
 */
export function billableSeconds(durationSeconds: number, maxSeconds: number | null): number {
  return maxSeconds === null ? durationSeconds : Math.min(durationSeconds, maxSeconds);
}
