/**
 * The calendar of a number's monthly subscription. Periods are counted from the purchase (the anchor) in
 * UTC, like Stripe's billing anchor: a number bought on January 31 renews on February 28 (29 in a leap
 * year), March 31, April 30 — each period ends on the anchor's day of the month, or the month's last day
 * when it has fewer days, and never drifts to the shorter day after a short month.
 */

import { MONTHLY, type SubscriptionPeriod } from '../config.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** After a failed renewal the card is tried again after 1, 3 and 5 days; then the number is released. */
export const RETRY_DAYS = [1, 3, 5];

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

/** When period `n` (1 is the month bought at purchase) ends, for a subscription anchored at `anchor`. */
export function periodEnd(anchor: Date, n: number, period: SubscriptionPeriod = MONTHLY): Date {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`A period number is a whole number from 0, got ${n}.`);
  if ('ms' in period) return new Date(anchor.getTime() + n * period.ms);
  const monthIndex = anchor.getUTCMonth() + n;
  const year = anchor.getUTCFullYear() + Math.floor(monthIndex / 12);
  const month = ((monthIndex % 12) + 12) % 12;
  const day = Math.min(anchor.getUTCDate(), daysInMonth(year, month));
  return new Date(Date.UTC(year, month, day, anchor.getUTCHours(), anchor.getUTCMinutes(), anchor.getUTCSeconds(), anchor.getUTCMilliseconds()));
}

/**
 * The waits between a failed renewal and its retries. With a test period, days shrink in proportion to it
 * (a month is taken as 30 days), so a test of seconds sees the whole schedule.
 */
export function retryDelaysMs(period: SubscriptionPeriod = MONTHLY): number[] {
  const scale = 'ms' in period ? period.ms / (30 * DAY_MS) : 1;
  return RETRY_DAYS.map((days) => Math.max(1, Math.round(days * DAY_MS * scale)));
}
