import type Koa from 'koa';

/**
 * A signal aborted when the client goes away before its response is finished: the request stops arriving or
 * the connection closes while the answer (a stream, say) is still being written. Work nobody will read, such
 * as a language-model turn, listens to it and stops.
 */
export function connectionSignal(ctx: Koa.Context): AbortSignal {
  const controller = new AbortController();
  const { req, res } = ctx;
  const requestCut = () => req.destroyed && !req.complete;
  const responseCut = () => res.destroyed && !res.writableFinished;
  if (requestCut() || responseCut()) {
    controller.abort();
    return controller.signal;
  }
  // `close` also follows a request read to its end and every finished response; only a cut one aborts.
  req.once('close', () => {
    if (!req.complete) controller.abort();
  });
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
