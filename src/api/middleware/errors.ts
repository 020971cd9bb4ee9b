import type Koa from 'koa';
import { DomainError } from '../../lib/errors.ts';
import { domainErrorResponse, familyBody, methodNotAllowedResponse, unexpectedErrorResponse, type ErrorResponse } from '../error-table.ts';
import type { RequestState, RouteErrorState } from '../state.ts';

function reply(ctx: Koa.Context, response: ErrorResponse): void {
  ctx.status = response.status;
  ctx.body = response.body;
  for (const [name, value] of Object.entries(response.headers)) ctx.set(name, value);
}

/**
 * The one place where a thrown error becomes a response, through the error table: domain errors answer with
 * their code's status in the body of their route family (`ctx.state.errorStyle`); anything else is logged
 * with its stack and answers a 500 carrying only the route's failure text and the request id. Unmatched
 * paths and methods answer JSON too.
 */
export function errorHandler(): Koa.Middleware<RequestState & RouteErrorState> {
  return async (ctx, next) => {
    const style = () => ctx.state.errorStyle ?? 'message';
    try {
      await next();
      if (ctx.body !== undefined) return;
      if (ctx.status === 404) reply(ctx, { status: 404, body: familyBody(style(), 'Not Found.', 'NOT_FOUND'), headers: {} });
      // koa-router's allowedMethods sets 405 and `Allow` without a body when the path exists under other methods,
      // and 501 for a method no route has (TRACE, CONNECT, made-up ones): to a client that is a method this path
      // does not take, as Laravel answers it, or a path that does not exist.
      else if (ctx.status === 405 || ctx.status === 501) {
        const allowed = ctx.response.get('Allow').split(/,\s*/).filter(Boolean);
        if (allowed.length > 0) reply(ctx, methodNotAllowedResponse(ctx.method, ctx.path, allowed));
        else {
          ctx.remove('Allow');
          reply(ctx, { status: 404, body: familyBody(style(), 'Not Found.', 'NOT_FOUND'), headers: {} });
        }
      }
    } catch (error) {
      if (error instanceof DomainError) {
        reply(ctx, domainErrorResponse(error, style()));
        return;
      }
      ctx.state.log.error({ err: error }, 'unexpected error');
      reply(ctx, unexpectedErrorResponse(style(), ctx.state.requestId, ctx.state.failureText));
    }
  };
}
