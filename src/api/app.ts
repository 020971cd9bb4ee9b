import Koa from 'koa';
import Router from '@koa/router';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { RequestGuards } from './guards.ts';
import { authenticate } from './middleware/auth.ts';
import { corsPolicy } from './middleware/cors.ts';
import { errorHandler } from './middleware/errors.ts';
import { requestMetrics } from './middleware/metrics.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { requestContext } from './middleware/request-context.ts';
import { answeringLayers, mountRoutes, type RouteDefinition } from './routing.ts';
import { consoleRoutes } from './console.ts';
import { webRoutes } from './web.ts';

export interface AppDeps {
  config: Config;
  logger: Logger;
  /** What the app serves under `/api`, in the order they are matched (roles/api.ts: apiRoutes). */
  routes: RouteDefinition[];
  /** Authentication and rate limiting, the same the routes were built with. */
  guards: RequestGuards;
  /** Pages served beside the widget, outside `/api` (the sandbox carrier's softphone and WhatsApp phone). */
  pages?: Router;
}

const publicPaths = /^\/(api\/conversations(\/|$)|api\/web-calls$|widget)/;

export interface Api {
  app: Koa;
  router: Router;
  routes: RouteDefinition[];
}

/** The Koa application: request context, request metrics, error mapper and CORS first, then the given routes under `/api`. */
export function createApp(deps: AppDeps): Api {
  const app = new Koa({ proxy: deps.config.http.trustProxy });
  app.use(requestContext(deps.logger));
  app.use(requestMetrics());
  app.use(errorHandler());
  app.use(corsPolicy(deps.config.http.corsOrigins, (path) => publicPaths.test(path)));

  const router = new Router({ prefix: '/api' });
  mountRoutes(router, deps.routes, {
    authenticate: authenticate(deps.guards.resolveToken),
    rateLimit: rateLimit(deps.guards.limiter, deps.config.http.rateLimitPerMinute),
    routeRateLimit: ({ perMinute, bucket }) => rateLimit(deps.guards.limiter, perMinute, bucket),
    bodyLimitBytes: deps.config.http.bodyLimitBytes,
  });
  app.use(router.routes());
  // The methods a path takes (`Allow` of an OPTIONS or a 405) are those of the routes that answer it: a path
  // spelled out in full does not take its template sibling's (DELETE /user/payment-methods/{id} is not
  // /user/payment-methods/setup-intent's).
  app.use(async (ctx, next) => {
    const matched = (ctx as { matched?: unknown[] }).matched;
    if (matched) (ctx as { matched?: unknown[] }).matched = answeringLayers(ctx);
    await next();
  });
  app.use(router.allowedMethods());
  app.use(webRoutes().routes());
  app.use(consoleRoutes({ publicUrl: deps.config.publicUrl, mediaUrl: deps.config.media.publicUrl }).routes());
  if (deps.pages) app.use(deps.pages.routes());
  // Errors Koa sees after a response has begun (a stream cut short): a client that left mid-stream is routine,
  // anything else goes to the log instead of Koa's default print to stderr.
  app.on('error', (error: NodeJS.ErrnoException, ctx?: Koa.Context) => {
    const log = (ctx?.state as { log?: Logger } | undefined)?.log ?? deps.logger;
    if (error.code === 'ERR_STREAM_PREMATURE_CLOSE') log.debug({ path: ctx?.path }, 'the client left before the response ended');
    else log.error({ err: error, path: ctx?.path }, 'error after the response began');
  });
  return { app, router, routes: deps.routes };
}
