import type Koa from 'koa';
import { AppError, errorBody, type ErrorStyle } from '../../lib/errors.ts';
import type { RequestState } from '../state.ts';

/**
 * The one place where a thrown error becomes a response. Known errors answer with the documented body of
 * their route family (`ctx.state.errorStyle`); anything else is a 500 whose details go to the log only.
 */
export function errorHandler(): Koa.Middleware<RequestState & { errorStyle?: ErrorStyle }> {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = errorBody(ctx.state.errorStyle ?? 'message', 'Not Found.');
      }
    } catch (error) {
      if (error instanceof AppError) {
        ctx.status = error.status;
        ctx.body = error.body(ctx.state.errorStyle ?? 'message');
        for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
        return;
      }
      ctx.state.log.error({ err: error }, 'unexpected error');
      ctx.status = 500;
      ctx.body = errorBody(ctx.state.errorStyle ?? 'message', 'Server Error');
    }
  };
}
