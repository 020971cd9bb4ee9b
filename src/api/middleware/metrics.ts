import type Koa from 'koa';
import { httpRequestDuration, httpRequests } from '../../lib/metrics.ts';

/** What a request is counted under when no route took it: 404s of any path are one series, not one per path. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * The route label of a request: the pattern of the route that answered it, never the raw path, whose ids would
 * make a series per resource. Koa's router leaves its pattern on the context (`/api/user/assistants/:id`); the
 * label spells parameters as the OpenAPI document does (`/api/user/assistants/{id}`), so one can be looked up
 * in the other.
 */
export function routeLabel(matchedRoute: unknown): string {
  if (typeof matchedRoute !== 'string' || matchedRoute === '') return UNMATCHED_ROUTE;
  return matchedRoute.replace(/:(\w+)(\([^)]*\))?\??/g, '{$1}');
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
