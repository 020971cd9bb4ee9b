import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresRateLimiter } from '../../src/db/rate-limiter.ts';
import { testClock } from '../support/clock.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser } from '../support/users.ts';

/** Half a second before the next minute boundary of the system clock. */
function justBeforeAMinute(): Date {
  return new Date(Math.ceil(Date.now() / 60_000) * 60_000 + 60_000 - 500);
}

describe('the per-credential rate limit across a minute boundary', () => {
  const clock = testClock(justBeforeAMinute());
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform({ env: { RATE_LIMIT_PER_MINUTE: '5' }, clock: clock.now });
  });
  afterAll(() => platform.close());

  it('does not let twice the limit through: the budget spent before the boundary is still spent after it', async () => {
    const user = await createTestUser(platform.database.knex);
    const me = () => platform.request('GET', '/user/me', { token: user.token });
    const before = [];
    for (let i = 0; i < 5; i++) before.push(await me());
    expect(before.map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
    expect(before.map((response) => response.headers.get('x-ratelimit-remaining'))).toEqual(['4', '3', '2', '1', '0']);

    clock.advance(1_000);
    const after = [];
    for (let i = 0; i < 5; i++) after.push(await me());
    expect(after.map((response) => response.status)).toEqual([429, 429, 429, 429, 429]);
    expect(after[0]?.body).toEqual({ message: 'Too Many Attempts.', retry_after: 11 });
    expect(after[0]?.headers.get('retry-after')).toBe('11');
    expect(after[0]?.headers.get('x-ratelimit-limit')).toBe('5');

    // The refusals were not counted: once the interval has passed, exactly one more request goes through.
    clock.advance(11_000);
    expect((await me()).status).toBe(200);
    expect((await me()).status).toBe(429);
  });
});

describe('the rate limiter kept in PostgreSQL', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(() => platform.close());

  it('shares one count between the limiters of two API replicas', async () => {
    const clock = testClock();
    const replicas = [postgresRateLimiter(platform.database.knex, clock.now), postgresRateLimiter(platform.database.knex, clock.now)];
    const limit = { limit: 4, periodMs: 60_000 };
    const decisions = [];
    for (let i = 0; i < 6; i++) decisions.push(await replicas[i % 2]!.hit('shared-key', limit));
    expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, true, true, false, false]);
    expect(decisions.map((decision) => decision.remaining)).toEqual([3, 2, 1, 0, 0, 0]);
    expect(decisions[4]?.retryAfterSeconds).toBe(15);

    clock.advance(15_000);
    expect(await replicas[0]!.hit('shared-key', limit)).toEqual({ allowed: true, remaining: 0, retryAfterSeconds: 0 });
    expect((await replicas[1]!.hit('shared-key', limit)).allowed).toBe(false);
  });

  it('does not let twice the limit through across a minute boundary', async () => {
    const clock = testClock(justBeforeAMinute());
    const limiter = postgresRateLimiter(platform.database.knex, clock.now);
    const limit = { limit: 10, periodMs: 60_000 };
    const allowed = async () => {
      let count = 0;
      for (let i = 0; i < 10; i++) if ((await limiter.hit('boundary-key', limit)).allowed) count++;
      return count;
    };
    expect(await allowed()).toBe(10);
    clock.advance(1_000);
    expect(await allowed()).toBe(0);
  });

  it("leases a busy key's budget in blocks, each held for a second: a statement per block, the count exact", async () => {
    const clock = testClock();
    const limiter = postgresRateLimiter(platform.database.knex, clock.now);
    let statements = 0;
    const count = (query: { sql: string }) => {
      if (query.sql.includes('rate_limits')) statements++;
    };
    platform.database.knex.on('query', count);
    try {
      // 600 a minute: blocks of 1, 2, 4, 8, then 10 (a second's worth).
      const decisions = [];
      for (let i = 0; i < 30; i++) decisions.push(await limiter.hit('busy-key', { limit: 600, periodMs: 60_000 }));
      expect(decisions.map((decision) => decision.remaining)).toEqual(Array.from({ length: 30 }, (_, i) => 599 - i));
      expect(statements).toBe(6);
      // Five units of the last block are left; a second later they are gone, and the next request takes a block.
      clock.advance(1_000);
      await limiter.hit('busy-key', { limit: 600, periodMs: 60_000 });
      expect(statements).toBe(7);
    } finally {
      platform.database.knex.off('query', count);
    }
  });

  it('lets no more than the limit through a burst on two replicas that lease, and at most a block each fewer', async () => {
    const clock = testClock();
    const replicas = [postgresRateLimiter(platform.database.knex, clock.now), postgresRateLimiter(platform.database.knex, clock.now)];
    // Blocks of up to 5 (a second's worth): a replica whose requests are all answered may still hold some.
    const limit = { limit: 300, periodMs: 60_000 };
    const decisions = await Promise.all(Array.from({ length: 400 }, (_, i) => replicas[i % 2]!.hit('burst-key', limit)));
    const allowed = decisions.filter((decision) => decision.allowed).length;
    expect(allowed).toBeLessThanOrEqual(300);
    expect(allowed).toBeGreaterThanOrEqual(300 - 2 * 5);
    expect(Math.min(...decisions.filter((decision) => !decision.allowed).map((decision) => decision.retryAfterSeconds))).toBe(1);
  });

  it('forgets keys whose time has passed, at most once a minute', async () => {
    const clock = testClock();
    const limiter = postgresRateLimiter(platform.database.knex, clock.now);
    await limiter.hit('stale-key', { limit: 1, periodMs: 1_000 });
    const stored = () => platform.database.knex('rate_limits').where({ key: 'stale-key' }).first();
    expect(await stored()).toBeDefined();
    clock.advance(60_000);
    await limiter.hit('fresh-key', { limit: 1, periodMs: 1_000 });
    expect(await stored()).toBeUndefined();
  });
});
