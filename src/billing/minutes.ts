/**
 * The white-label units (anchor §3.5) over Parley's one USD balance: a minute is what a minute of a call costs
 * at the admin's plan price, and a chat credit is a ninth of a minute (the anchor's "9 credits = 1 minute").
 * Pure, so the rounding is tested on its own (docs/decisions.md, "White-label minutes and credits").
 */

export type TransferUnit = 'minutes' | 'credits';

export const CREDITS_PER_MINUTE = 9;

/** What `amount` of the unit is worth in micro-dollars at `perMinuteMicros`, rounded to the nearest micro-dollar. */
export function unitsToMicros(amount: number, unit: TransferUnit, perMinuteMicros: number): number {
  if (!Number.isFinite(amount) || amount < 0) throw new RangeError(`not an amount: ${amount}`);
  if (!Number.isInteger(perMinuteMicros) || perMinuteMicros < 0) throw new RangeError(`not a price: ${perMinuteMicros}`);
  const minutes = unit === 'minutes' ? amount : amount / CREDITS_PER_MINUTE;
  return Math.round(minutes * perMinuteMicros);
}

/**
 * A balance in the unit, rounded down to the hundredth so that it never shows more than the balance pays for;
 * 0 when the price is 0 (free calls have no minutes to count) or the balance is not positive.
 */
export function microsToUnits(balanceMicros: number, unit: TransferUnit, perMinuteMicros: number): number {
  if (balanceMicros <= 0 || perMinuteMicros <= 0) return 0;
  const perUnit = unit === 'minutes' ? 1 : CREDITS_PER_MINUTE;
  return Math.floor((balanceMicros * perUnit * 100) / perMinuteMicros) / 100;
}
