import { describe, expect, it } from 'vitest';
import { periodEnd, retryDelaysMs } from '../../src/billing/renewals.ts';

const at = (iso: string) => new Date(iso);
const ends = (anchor: string, periods: number) => Array.from({ length: periods }, (_, i) => periodEnd(at(anchor), i + 1).toISOString());

describe('subscription periods', () => {
  it('end on the purchase day of each following month, at the purchase time', () => {
    expect(ends('2026-03-15T10:20:30.400Z', 3)).toEqual(['2026-04-15T10:20:30.400Z', '2026-05-15T10:20:30.400Z', '2026-06-15T10:20:30.400Z']);
    expect(periodEnd(at('2026-03-15T10:20:30.400Z'), 0).toISOString()).toBe('2026-03-15T10:20:30.400Z');
  });

  it('end on the last day of a shorter month, and go back to the purchase day after it', () => {
    expect(ends('2027-01-31T00:00:00.000Z', 4)).toEqual(['2027-02-28T00:00:00.000Z', '2027-03-31T00:00:00.000Z', '2027-04-30T00:00:00.000Z', '2027-05-31T00:00:00.000Z']);
    expect(ends('2026-08-30T12:00:00.000Z', 7).slice(5)).toEqual(['2027-02-28T12:00:00.000Z', '2027-03-30T12:00:00.000Z']);
  });

  it('know leap years: February 29 in 2028, not 2100, and 2000', () => {
    expect(periodEnd(at('2028-01-31T08:00:00.000Z'), 1).toISOString()).toBe('2028-02-29T08:00:00.000Z');
    expect(periodEnd(at('2100-01-29T08:00:00.000Z'), 1).toISOString()).toBe('2100-02-28T08:00:00.000Z');
    expect(periodEnd(at('2000-01-30T08:00:00.000Z'), 1).toISOString()).toBe('2000-02-29T08:00:00.000Z');
    // Bought on a leap day: the 28th in ordinary years, the 29th in the next leap year.
    expect(periodEnd(at('2028-02-29T00:00:00.000Z'), 12).toISOString()).toBe('2029-02-28T00:00:00.000Z');
    expect(periodEnd(at('2028-02-29T00:00:00.000Z'), 48).toISOString()).toBe('2032-02-29T00:00:00.000Z');
  });

  it('cross years, and count in UTC whatever the local time zone', () => {
    expect(periodEnd(at('2026-11-30T23:30:00.000Z'), 3).toISOString()).toBe('2027-02-28T23:30:00.000Z');
    expect(periodEnd(at('2026-12-31T23:59:59.999Z'), 14).toISOString()).toBe('2028-02-29T23:59:59.999Z');
    // 00:30 in Berlin on March 1 is still February 28 in UTC: the anchor's UTC day is what counts.
    expect(periodEnd(at('2027-03-01T00:30:00+01:00'), 1).toISOString()).toBe('2027-03-28T23:30:00.000Z');
  });

  it('never step back or stand still, over ten years from every day of a year', () => {
    for (let day = 0; day < 366; day++) {
      const anchor = new Date(Date.UTC(2028, 0, 1 + day, 6));
      let previous = anchor.getTime();
      for (let n = 1; n <= 120; n++) {
        const end = periodEnd(anchor, n);
        expect(end.getTime()).toBeGreaterThan(previous);
        // 28 to 31 days apart, and on the anchor's day whenever the month has it.
        const days = (end.getTime() - previous) / 86_400_000;
        expect(days).toBeGreaterThanOrEqual(28);
        expect(days).toBeLessThanOrEqual(31 + 3);
        if (anchor.getUTCDate() <= 28) expect(end.getUTCDate()).toBe(anchor.getUTCDate());
        previous = end.getTime();
      }
    }
  });

  it('take a fixed length for tests, and refuse a negative or fractional period number', () => {
    expect(periodEnd(at('2026-01-01T00:00:00.000Z'), 3, { ms: 10_000 }).toISOString()).toBe('2026-01-01T00:00:30.000Z');
    expect(() => periodEnd(at('2026-01-01T00:00:00.000Z'), -1)).toThrow(RangeError);
    expect(() => periodEnd(at('2026-01-01T00:00:00.000Z'), 1.5)).toThrow(RangeError);
  });
});

describe('renewal retries', () => {
  it('come after 1, 3 and 5 days, or in proportion to a test period', () => {
    expect(retryDelaysMs()).toEqual([86_400_000, 3 * 86_400_000, 5 * 86_400_000]);
    // A 30-second "month": a day is one second.
    expect(retryDelaysMs({ ms: 30_000 })).toEqual([1000, 3000, 5000]);
  });
});
