import type { Logger } from '../logger.ts';
import type { ErrorStyle } from './error-table.ts';

/** What the middleware chain puts on `ctx.state` for the handlers after it. */
export interface RequestState {
  requestId: string;
  log: Logger;
}

/** What a matched route tells the error handler: its body family and its documented failure text. */
export interface RouteErrorState {
  errorStyle?: ErrorStyle;
  failureText?: string;
}
