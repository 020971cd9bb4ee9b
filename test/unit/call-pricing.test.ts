import { describe, expect, it } from 'vitest';
import { affordableSeconds, billableSeconds, callCostMicros, canAffordCall, extendedReservation, firstReservation, startedSeconds } from '../../src/billing/call-pricing.ts';

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
});

describe('call reservations, a minute at a time', () => {
  it('reserves a new call\'s first minute of what the balance leaves beside the other live calls', () => {
    // 0.30 USD at 0.10 USD a minute: three calls of a minute each, not one of three minutes.
    expect(firstReservation(600, 300_000, 100_000)).toEqual({ maxSeconds: 60, limitReason: 'balance', reservedMicros: 100_000 });
    expect(firstReservation(45, 300_000, 100_000)).toEqual({ maxSeconds: 45, limitReason: 'max_call_duration', reservedMicros: 75_000 });
  });

  it('refuses a call when what is left does not pay for a minute', () => {
    expect(firstReservation(600, 99_999, 100_000)).toBeUndefined();
    expect(firstReservation(600, 0, 100_000)).toBeUndefined();
    // Reservations above the balance (a chat spent meanwhile) leave less than nothing.
    expect(firstReservation(600, -1_000_000, 100_000)).toBeUndefined();
  });

  it('reserves the whole limit of free calls, which the balance does not limit', () => {
    expect(firstReservation(300, 1, 0)).toEqual({ maxSeconds: 300, limitReason: 'max_call_duration', reservedMicros: 0 });
  });

  it('extends by a minute while the balance pays, up to the assistant\'s limit', () => {
    expect(extendedReservation(60, 600, 1_000_000, 100_000)).toEqual({ maxSeconds: 120, limitReason: 'balance', reservedMicros: 200_000 });
    expect(extendedReservation(570, 600, 1_000_000, 100_000)).toEqual({ maxSeconds: 600, limitReason: 'max_call_duration', reservedMicros: 1_000_000 });
    // 0.15 USD spendable in all (its own reservation of 0.10 included): 30 s more, then nothing.
    expect(extendedReservation(60, 600, 150_000, 100_000)).toEqual({ maxSeconds: 90, limitReason: 'balance', reservedMicros: 150_000 });
    expect(extendedReservation(90, 600, 150_000, 100_000)).toBeUndefined();
    expect(extendedReservation(600, 600, 10_000_000, 100_000)).toBeUndefined();
  });

  it('never lets calls reserving and extending at once hold more than the balance together', () => {
    // A deterministic spread of balances, prices and assistant limits; calls start and extend in any order.
    let seed = 7;
    const next = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % below;
    };
    for (let run = 0; run < 200; run++) {
      const balance = next(20_000_000);
      const price = 1 + next(999_999);
      const calls: { reservedSeconds: number; reservedMicros: number; maxDuration: number }[] = [];
      const held = () => calls.reduce((sum, call) => sum + call.reservedMicros, 0);
      for (let step = 0; step < 40; step++) {
        const call = calls[next(calls.length + 1)];
        if (!call) {
          const maxDuration = 20 + next(1180);
          const first = firstReservation(maxDuration, balance - held(), price);
          if (first) calls.push({ reservedSeconds: first.maxSeconds, reservedMicros: first.reservedMicros, maxDuration });
        } else {
          const extended = extendedReservation(call.reservedSeconds, call.maxDuration, balance - (held() - call.reservedMicros), price);
          if (extended) {
            expect(extended.maxSeconds).toBeGreaterThan(call.reservedSeconds);
            Object.assign(call, { reservedSeconds: extended.maxSeconds, reservedMicros: extended.reservedMicros });
          }
        }
        expect(held()).toBeLessThanOrEqual(balance);
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
