import type Koa from 'koa';
import type { RateLimiter } from '../../db/rate-limiter.ts';
import { TooManyRequestsError } from '../../lib/errors.ts';
import type { AuthContext } from './auth.ts';

/**
 * At most `perMinute` requests a minute per credential (per client address when unauthenticated), the whole
 * budget usable at once and then at the steady rate (db/rate-limiter.ts: GCRA), so no minute boundary lets
 * twice the limit through; kept where every API replica sees it. `bucket` names the count: `api` for the
 * limit of every route, a route's own name for a tighter one of its own (see `rateLimit` in routing.ts).
 */
export function rateLimit(limiter: RateLimiter, perMinute: number, bucket = 'api'): Koa.Middleware {
  const limit = { limit: perMinute, periodMs: 60_000 };
  return async (ctx, next) => {
    const auth = ctx.state.auth as AuthContext | undefined;
    const key = auth ? `${bucket}:token:${auth.tokenId}` : `${bucket}:ip:${ctx.ip}`;
    const decision = await limiter.hit(key, limit);
    ctx.set('X-RateLimit-Limit', String(perMinute));
    ctx.set('X-RateLimit-Remaining', String(decision.remaining));
    if (!decision.allowed) throw new TooManyRequestsError(decision.retryAfterSeconds);
    await next();
  };
}
