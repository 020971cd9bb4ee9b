import { describe, expect, it } from 'vitest';
import { microsToUnits, unitsToMicros } from '../../src/billing/minutes.ts';

describe('white-label minutes and credits', () => {
  it('prices a minute at the plan price and a credit at a ninth of it, to the nearest micro-dollar', () => {
    expect(unitsToMicros(1, 'minutes', 100_000)).toBe(100_000);
    expect(unitsToMicros(2.5, 'minutes', 100_000)).toBe(250_000);
    expect(unitsToMicros(9, 'credits', 100_000)).toBe(100_000);
    expect(unitsToMicros(1, 'credits', 100_000)).toBe(11_111);
    expect(unitsToMicros(5, 'credits', 100_000)).toBe(55_556);
    expect(unitsToMicros(3, 'minutes', 0)).toBe(0);
  });

  it('shows a balance rounded down to the hundredth, never more than it pays for', () => {
    expect(microsToUnits(3_000_000, 'minutes', 100_000)).toBe(30);
    expect(microsToUnits(3_000_000, 'credits', 100_000)).toBe(270);
    expect(microsToUnits(11_111, 'credits', 100_000)).toBe(0.99);
    expect(microsToUnits(99_999, 'minutes', 100_000)).toBe(0.99);
    expect(microsToUnits(150_500, 'minutes', 10_000)).toBe(15.05);
  });

  it('is 0 for an empty or negative balance and for free calls', () => {
    expect(microsToUnits(0, 'minutes', 100_000)).toBe(0);
    expect(microsToUnits(-5, 'credits', 100_000)).toBe(0);
    expect(microsToUnits(1_000_000, 'minutes', 0)).toBe(0);
  });

  it('refuses what is not an amount or a price', () => {
    expect(() => unitsToMicros(-1, 'minutes', 100_000)).toThrow(RangeError);
    expect(() => unitsToMicros(Number.NaN, 'credits', 100_000)).toThrow(RangeError);
    expect(() => unitsToMicros(1, 'minutes', 1.5)).toThrow(RangeError);
  });
});
