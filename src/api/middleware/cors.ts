import type Koa from 'koa';
import cors from '@koa/cors';

/**
 * Conversation endpoints, public web-call creation and the widget are called from any site that embeds the
 * widget, so they allow any origin; the authenticated API allows only the origins in CORS_ORIGINS.
 */
export function corsPolicy(allowedOrigins: string[], isPublic: (path: string) => boolean): Koa.Middleware {
  return cors({
    origin: (ctx) => {
      const origin = ctx.get('origin');
      if (isPublic(ctx.path)) return origin || '*';
      return allowedOrigins.includes(origin) ? origin : '';
    },
    allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    allowHeaders: ['Authorization', 'Content-Type', 'Accept', 'X-Request-Id'],
    exposeHeaders: ['X-Request-Id', 'Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining'],
    maxAge: 600,
  });
}
