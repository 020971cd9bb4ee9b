import { describe, expect, it } from 'vitest';
import { affordableSeconds, billableSeconds, callCostMicros, callTimeLimit, canAffordCall, reserveCallTime, startedSeconds } from '../../src/billing/call-pricing.ts';

const at = (ms: number) => new Date(Date.UTC(2026, 10, 23, 12, 0, 0) + ms);

describe('startedSeconds', () => {
  it('counts every second that has begun', () => {
    expect(startedSeconds(at(0), at(0))).toBe(0);
    expect(startedSeconds(at(0), at(1))).toBe(1);
    expect(startedSeconds(at(0), at(999))).toBe(1);
    expect(startedSeconds(at(0), at(1000))).toBe(1);
    expect(startedSeconds(at(0), at(1001))).toBe(2);
    expect(startedSeconds(at(0), at(61_500))).toBe(62);
  });

  it('is 0 for an end before the start (clocks of two machines)', () => {
    expect(startedSeconds(at(500), at(0))).toBe(0);
  });
});

describe('callCostMicros', () => {
  it('is a sixtieth of the minute price a second', () => {
    expect(callCostMicros(60, 100_000)).toBe(100_000);
    expect(callCostMicros(1, 120_000)).toBe(2_000);
    expect(callCostMicros(90, 100_000)).toBe(150_000);
    expect(callCostMicros(0, 100_000)).toBe(0);
  });

  it('rounds a fraction of a micro-dollar up, once for the whole call', () => {
    // 100,000 / 60 = 1,666.67 a second: one second costs 1,667, not 1,666.
    expect(callCostMicros(1, 100_000)).toBe(1_667);
    // Rounding per second would make 7 seconds 11,669; the exact 11,666.67 rounds up to 11,667.
    expect(callCostMicros(7, 100_000)).toBe(11_667);
    expect(callCostMicros(1, 1)).toBe(1);
  });

  it('is free at a price of 0, and exact at the longest call', () => {
    expect(callCostMicros(45, 0)).toBe(0);
    expect(callCostMicros(1200, 999_999)).toBe(19_999_980);
  });

  it('refuses what is not a whole, non-negative number', () => {
    expect(() => callCostMicros(1.5, 100_000)).toThrow(RangeError);
    expect(() => callCostMicros(-1, 100_000)).toThrow(RangeError);
    expect(() => callCostMicros(10, -5)).toThrow(RangeError);
  });
});

describe('what a balance pays for', () => {
  it('is the whole seconds the balance covers', () => {
    expect(affordableSeconds(100_000, 100_000)).toBe(60);
    expect(affordableSeconds(99_999, 100_000)).toBe(59);
    expect(affordableSeconds(0, 100_000)).toBe(0);
    expect(affordableSeconds(-5, 100_000)).toBe(0);
    expect(affordableSeconds(1, 0)).toBe(Infinity);
  });

  it('never lets a call last longer than its cost stays within the balance', () => {
    for (const [balance, price] of [[99_999, 100_000], [123_457, 70_000], [5_000_000, 999_999]] as const) {
      const seconds = affordableSeconds(balance, price);
      expect(callCostMicros(seconds, price)).toBeLessThanOrEqual(balance);
      expect(callCostMicros(seconds + 1, price)).toBeGreaterThan(balance);
    }
  });

  it('needs at least a minute to start a call', () => {
    expect(canAffordCall(100_000, 100_000)).toBe(true);
    expect(canAffordCall(99_999, 100_000)).toBe(false);
    expect(canAffordCall(0, 0)).toBe(false);
    expect(canAffordCall(1, 0)).toBe(true);
  });

  it('limits a call to the assistant\'s maximum or the balance, whichever is less', () => {
    expect(callTimeLimit(600, 10_000_000, 100_000)).toEqual({ maxSeconds: 600, limitReason: 'max_call_duration' });
    expect(callTimeLimit(600, 250_000, 100_000)).toEqual({ maxSeconds: 150, limitReason: 'balance' });
    expect(callTimeLimit(600, 1_000_000, 100_000)).toEqual({ maxSeconds: 600, limitReason: 'max_call_duration' });
    expect(callTimeLimit(600, 1, 0)).toEqual({ maxSeconds: 600, limitReason: 'max_call_duration' });
  });
});

describe('reserveCallTime', () => {
  it('gives a call what the balance leaves once the other live calls\' reservations are set aside', () => {
    // 3 USD at 0.10 USD a minute pays for 30 minutes; a first call of at most 20 minutes reserves 2 USD.
    expect(reserveCallTime(1200, 3_000_000, 0, 100_000)).toEqual({ maxSeconds: 1200, limitReason: 'max_call_duration', reservedMicros: 2_000_000 });
    expect(reserveCallTime(1200, 3_000_000, 2_000_000, 100_000)).toEqual({ maxSeconds: 600, limitReason: 'balance', reservedMicros: 1_000_000 });
  });

  it('refuses a call when what is left does not pay for a minute', () => {
    expect(reserveCallTime(1200, 3_000_000, 3_000_000, 100_000)).toBeUndefined();
    expect(reserveCallTime(1200, 3_000_000, 2_900_001, 100_000)).toBeUndefined();
    expect(reserveCallTime(1200, 3_000_000, 2_900_000, 100_000)).toEqual({ maxSeconds: 60, limitReason: 'balance', reservedMicros: 100_000 });
    // Reservations above the balance (a chat spent meanwhile) leave nothing, not a negative limit.
    expect(reserveCallTime(1200, 1_000_000, 2_000_000, 100_000)).toBeUndefined();
  });

  it('reserves nothing for free calls, which the balance does not limit', () => {
    expect(reserveCallTime(300, 1, 0, 0)).toEqual({ maxSeconds: 300, limitReason: 'max_call_duration', reservedMicros: 0 });
  });

  it('never lets calls started one after another reserve more than the balance together', () => {
    // A deterministic spread of balances, prices and assistant limits; each call starts beside all before it.
    let seed = 7;
    const next = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % below;
    };
    for (let run = 0; run < 200; run++) {
      const balance = next(20_000_000);
      const price = 1 + next(999_999);
      let reserved = 0;
      for (let call = 0; call < 8; call++) {
        const reservation = reserveCallTime(60 + next(3600), balance, reserved, price);
        if (!reservation) continue;
        expect(reservation.maxSeconds).toBeGreaterThanOrEqual(60);
        expect(reservation.reservedMicros).toBe(callCostMicros(reservation.maxSeconds, price));
        reserved += reservation.reservedMicros;
        expect(reserved).toBeLessThanOrEqual(balance);
      }
    }
  });
});

describe('billableSeconds', () => {
  it('bills the duration up to the time limit, and not the goodbye said past it', () => {
    expect(billableSeconds(42, 600)).toBe(42);
    expect(billableSeconds(600, 600)).toBe(600);
    expect(billableSeconds(606, 600)).toBe(600);
  });

  it('bills the whole duration of a call that has no limit', () => {
    expect(billableSeconds(606, null)).toBe(606);
  });
});
