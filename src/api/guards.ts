import type { Config } from '../config.ts';
import type { Knex } from '../db/database.ts';
import { createRateLimiter, type RateLimiter } from '../db/rate-limiter.ts';
import { systemClock, type Clock } from '../lib/clock.ts';
import type { ResolveToken } from './middleware/auth.ts';

/**
 * What decides whether a request may go on: the clock, the rate limiter and the bearer-token lookup. Built
 * once per app and shared by the middleware chain (authentication, the per-credential limit) and the routes
 * that guard themselves (the test-chat allowance), so one limiter holds every key.
 */
export interface RequestGuards {
  clock: Clock;
  limiter: RateLimiter;
  resolveToken: ResolveToken;
}

/** `resolveToken` makes the bearer-token lookup on the guards' clock: the role gives it (resources/auth's tokenResolver). */
export function createRequestGuards(deps: { knex: Knex; config: Pick<Config, 'database'>; clock?: Clock; resolveToken: (clock: Clock) => ResolveToken }): RequestGuards {
  const clock = deps.clock ?? systemClock;
  return {
    clock,
    limiter: createRateLimiter({ knex: deps.knex, sharedDatabase: deps.config.database.url !== undefined, clock }),
    resolveToken: deps.resolveToken(clock),
  };
}
