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

/** Why a call may last no longer than it does: the assistant's max_call_duration, or what the balance pays for. */
export type CallLimitReason = 'max_call_duration' | 'balance';

/** The most a call may last: the assistant's limit, or the seconds the balance pays for when that is less. */
export function callTimeLimit(maxDurationSeconds: number, balanceMicros: number, perMinuteMicros: number): { maxSeconds: number; limitReason: CallLimitReason } {
  const affordable = affordableSeconds(balanceMicros, perMinuteMicros);
  return affordable < maxDurationSeconds
    ? { maxSeconds: affordable, limitReason: 'balance' }
    : { maxSeconds: maxDurationSeconds, limitReason: 'max_call_duration' };
}

/** A call's time limit, and what it holds of its owner's balance while it is live: the most it can cost. */
export interface CallReservation {
  maxSeconds: number;
  limitReason: CallLimitReason;
  reservedMicros: number;
}

/**
 * The time limit of a call that starts while its owner's other calls are live. Those may still charge what
 * they reserved, so this call has the balance less their reservations to spend; it reserves its own largest
 * charge in turn, so the reservations of calls live at once never add up to more than the balance.
 * Undefined when what is left does not pay for a first minute.
 */
export function reserveCallTime(maxDurationSeconds: number, balanceMicros: number, reservedByOthersMicros: number, perMinuteMicros: number): CallReservation | undefined {
  const spendable = balanceMicros - reservedByOthersMicros;
  if (!canAffordCall(spendable, perMinuteMicros)) return undefined;
  const limit = callTimeLimit(maxDurationSeconds, spendable, perMinuteMicros);
  return { ...limit, reservedMicros: callCostMicros(limit.maxSeconds, perMinuteMicros) };
}

/**
 * The seconds a call is billed for: its duration, but never past its time limit. The engine ends a call at
 * its limit with a short goodbye; those seconds are not charged, so a call never costs more than it reserved.
 * A call never prepared (no limit) is billed its duration.
 */
export function billableSeconds(durationSeconds: number, maxSeconds: number | null): number {
  return maxSeconds === null ? durationSeconds : Math.min(durationSeconds, maxSeconds);
}
