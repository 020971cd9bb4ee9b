import type Koa from 'koa';
import { httpRequestDuration, httpRequests } from '../../lib/metrics.ts';

/** What a request is counted under when no route took it: 404s of any path are one series, not one per path. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * The route label of a request: the pattern of the route that answered it (`/api/user/assistants/:id`), never
 * the raw path, whose ids would make a series per resource. Koa's router leaves the pattern on the context.
 */
export function routeLabel(matchedRoute: unknown): string {
  return typeof matchedRoute === 'string' && matchedRoute !== '' ? matchedRoute : UNMATCHED_ROUTE;
}

/**
 * Counts every request and times it by method, route pattern and final status. It sits outside the error
 * mapper, so a request that failed is counted with the status its client got.
 */
export function requestMetrics(): Koa.Middleware {
  return async (ctx, next) => {
    const stopTimer = httpRequestDuration.startTimer();
    try {
      await next();
    } finally {
      const labels = { method: ctx.method, route: routeLabel((ctx as { _matchedRoute?: unknown })._matchedRoute), status: String(ctx.status) };
      stopTimer(labels);
      httpRequests.inc(labels);
    }
  };
}
