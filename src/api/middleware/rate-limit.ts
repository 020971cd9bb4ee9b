import type Koa from 'koa';
import { TooManyRequestsError } from '../../lib/errors.ts';
import type { AuthContext } from './auth.ts';

/**
 * A fixed one-minute window per credential (per client address when unauthenticated), kept in this process:
 * with several API replicas each allows the limit, which keeps a noisy client from saturating any one of them
 * without a database write on every request.
 */
export function rateLimit(perMinute: number, now: () => number = Date.now): Koa.Middleware {
  let windowStart = 0;
  let counts = new Map<string, number>();
  return async (ctx, next) => {
    const current = Math.floor(now() / 60_000) * 60_000;
    if (current !== windowStart) {
      windowStart = current;
      counts = new Map();
    }
    const auth = ctx.state.auth as AuthContext | undefined;
    const key = auth ? `token:${auth.tokenId}` : `ip:${ctx.ip}`;
    const count = (counts.get(key) ?? 0) + 1;
    counts.set(key, count);
    ctx.set('X-RateLimit-Limit', String(perMinute));
    ctx.set('X-RateLimit-Remaining', String(Math.max(perMinute - count, 0)));
    if (count > perMinute) throw new TooManyRequestsError(Math.max(Math.ceil((windowStart + 60_000 - now()) / 1000), 1));
    await next();
  };
}
