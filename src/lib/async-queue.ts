/**
 * The one queue between a producer that pushes (a socket, a native callback, a child's stdout, the dialogue
 * core's sentences) and one consumer that pulls with `for await` (one at a time: a consumer may pick up
 * where another stopped reading without leaving). Everything it needs to be bounded and
 * stoppable is optional:
 * - `flow`: above `highWater` waiting items the producer is paused (a paused socket stops reading, so TCP slows
 *   the sender), and resumed once the consumer has caught up to `lowWater` (half of it unless given);
 * - `signal`: once it aborts, iteration ends at once, whatever is still queued;
 * - `onLeave`: the consumer left before the end (a `break`), so the producer can stop its work.
 * `end(failure)` lets the consumer read what is queued, then throws `failure`; `clear()` ends at once.
 */

/** How the queue slows its producer. */
export interface QueueFlow {
  highWater: number;
  /** Resume at or below this many waiting items; half of `highWater` when not given. */
  lowWater?: number;
  pause(): void;
  resume(): void;
}

export interface AsyncQueueOptions {
  signal?: AbortSignal;
  flow?: QueueFlow;
  onLeave?: () => void;
}

export class AsyncQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private readonly options: AsyncQueueOptions;
  private ended = false;
  private failure: Error | undefined;
  private paused = false;
  private wake: (() => void) | undefined;

  constructor(options: AsyncQueueOptions = {}) {
    this.options = options;
    options.signal?.addEventListener('abort', () => this.notify(), { once: true });
  }

  /** Items pushed and not yet taken. */
  get size(): number {
    return this.items.length;
  }

  /** Whether `end()` or `clear()` was called. */
  get closed(): boolean {
    return this.ended;
  }

  push(item: T): void {
    if (this.ended) return;
    this.items.push(item);
    const { flow } = this.options;
    if (flow && !this.paused && this.items.length >= flow.highWater) {
      this.paused = true;
      flow.pause();
    }
    this.notify();
  }

  /** No more items: the consumer takes those waiting, then the end, or `failure` thrown. */
  end(failure?: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.failure = failure;
    this.notify();
  }

  /** Drops what is queued and ends at once: the consumer stops without an error. */
  clear(): void {
    this.items.length = 0;
    this.end();
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => this.next(),
      return: () => {
        if (!this.ended) this.options.onLeave?.();
        this.clear();
        this.failure = undefined;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }

  private async next(): Promise<IteratorResult<T>> {
    for (;;) {
      if (this.options.signal?.aborted) return { value: undefined, done: true };
      if (this.items.length > 0) {
        const item = this.items.shift() as T;
        this.resumeIfDrained();
        return { value: item, done: false };
      }
      if (this.ended) {
        const failure = this.failure;
        this.failure = undefined;
        if (failure) throw failure;
        return { value: undefined, done: true };
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  private resumeIfDrained(): void {
    const { flow } = this.options;
    if (!flow || !this.paused) return;
    if (this.items.length <= (flow.lowWater ?? flow.highWater / 2)) {
      this.paused = false;
      flow.resume();
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
