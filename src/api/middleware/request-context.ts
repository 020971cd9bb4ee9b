import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import type { Logger } from '../../logger.ts';

const incomingId = /^[\w.:-]{1,128}$/;

/**
 * Gives every request an id (the caller's `X-Request-Id` when it is sane), a child logger carrying it
 * on `ctx.state.log`, the id in the response header, and one access log line when the response is done.
 */
export function requestContext(logger: Logger): Koa.Middleware {
  return async (ctx, next) => {
    const header = ctx.get('x-request-id');
    const requestId = incomingId.test(header) ? header : randomUUID();
    const log = logger.child({ requestId });
    ctx.state.requestId = requestId;
    ctx.state.log = log;
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const line = { method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10 };
      if (ctx.status >= 500) log.error(line, 'request failed');
      else log.info(line, 'request');
    }
  };
}
