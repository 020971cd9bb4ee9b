import { describe, expect, it } from 'vitest';
import { gcra, inProcessRateLimiter, type RateDecision } from '../../src/db/rate-limiter.ts';
import { testClock } from '../support/clock.ts';

const perMinute = (limit: number) => ({ limit, periodMs: 60_000 });

async function hits(count: number, hit: () => Promise<RateDecision>): Promise<RateDecision[]> {
  const decisions: RateDecision[] = [];
  for (let i = 0; i < count; i++) decisions.push(await hit());
  return decisions;
}

describe('the rate limiter (GCRA)', () => {
  it('lets the whole budget through at once, counting down, then refuses with the wait for the next request', async () => {
    const clock = testClock(new Date('2026-01-01T00:00:10Z'));
    const limiter = inProcessRateLimiter(clock.now);
    const decisions = await hits(4, () => limiter.hit('k', perMinute(3)));
    expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, true, false]);
    expect(decisions.map((decision) => decision.remaining)).toEqual([2, 1, 0, 0]);
    expect(decisions[3]?.retryAfterSeconds).toBe(20);
    expect((await limiter.hit('other', perMinute(3))).allowed).toBe(true);
  });

  it('does not let twice the limit through across a minute boundary', async () => {
    const clock = testClock(new Date('2026-01-01T00:00:59.500Z'));
    const limiter = inProcessRateLimiter(clock.now);
    const before = await hits(10, () => limiter.hit('k', perMinute(10)));
    clock.advance(1000);
    const after = await hits(10, () => limiter.hit('k', perMinute(10)));
    expect(before.every((decision) => decision.allowed)).toBe(true);
    expect(after.filter((decision) => decision.allowed)).toHaveLength(0);
    expect(after[0]?.retryAfterSeconds).toBe(5);
  });

  it('passes the steady rate once the budget is spent, and a refusal does not count', async () => {
    const clock = testClock();
    const limiter = inProcessRateLimiter(clock.now);
    await hits(6, () => limiter.hit('k', perMinute(6)));
    const refusals = await hits(5, () => limiter.hit('k', perMinute(6)));
    expect(refusals.every((decision) => !decision.allowed && decision.retryAfterSeconds === 10)).toBe(true);
    clock.advance(9_999);
    expect((await limiter.hit('k', perMinute(6))).allowed).toBe(false);
    clock.advance(1);
    expect(await limiter.hit('k', perMinute(6))).toEqual({ allowed: true, remaining: 0, retryAfterSeconds: 0 });
    clock.advance(60_000);
    expect((await limiter.hit('k', perMinute(6))).remaining).toBe(5);
  });

  it('keeps fractional intervals exact enough for a limit that does not divide the period', () => {
    let arrival: number | undefined;
    const allowed: boolean[] = [];
    for (let i = 0; i < 8; i++) {
      const result = gcra(arrival, 1_000, perMinute(7));
      arrival = result.arrival;
      allowed.push(result.decision.allowed);
    }
    expect(allowed).toEqual([true, true, true, true, true, true, true, false]);
  });
});
