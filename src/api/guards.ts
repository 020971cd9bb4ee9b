import type { Config } from '../config.ts';
import type { Knex } from '../db/database.ts';
import { createRateLimiter, type RateLimiter } from '../db/rate-limiter.ts';
import { systemClock, type Clock } from '../lib/clock.ts';
import { tokenResolver } from '../resources/auth/tokens.ts';
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

export function createRequestGuards(deps: { knex: Knex; config: Pick<Config, 'database'>; clock?: Clock }): RequestGuards {
  const clock = deps.clock ?? systemClock;
  return {
    clock,
    limiter: createRateLimiter({ knex: deps.knex, sharedDatabase: deps.config.database.url !== undefined, clock }),
    resolveToken: tokenResolver(deps.knex, clock),
  };
}
