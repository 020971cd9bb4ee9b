/**
 * The promise's outcome, or the signal's reason as soon as it aborts, whichever comes first: the waiter stops at
 * once even when what it waits on (a database query, a user's endpoint) is slower to stop. The promise is left
 * to settle on its own, its failure handled.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason as Error);
    if (signal.aborted) abort();
    signal.addEventListener('abort', abort, { once: true });
    void promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stopped);
      resolve(true);
    }, ms);
    const stopped = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', stopped, { once: true });
  });
}
