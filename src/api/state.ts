import type { Logger } from '../logger.ts';

/** What the middleware chain puts on `ctx.state` for the handlers after it. */
export interface RequestState {
  requestId: string;
  log: Logger;
}
