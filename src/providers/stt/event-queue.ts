/**
 * The events of one stream for one consumer: the producer pushes, ends or fails it; the consumer iterates.
 * Items pushed before a failure are still read first. When the consumer leaves early, `onLeave` runs so the
 * producer can stop its work.
 */
export class EventQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private waiter: { resolve: (result: IteratorResult<T>) => void; reject: (error: Error) => void } | undefined;
  private ended = false;
  private failure: { error: Error } | undefined;
  private readonly onLeave: () => void;

  constructor(onLeave: () => void) {
    this.onLeave = onLeave;
  }

  push(item: T): void {
    if (this.ended) return;
    if (this.waiter) {
      this.takeWaiter().resolve({ value: item, done: false });
      return;
    }
    this.items.push(item);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.waiter) this.takeWaiter().resolve({ value: undefined, done: true });
  }

  /** Ends at once: events not yet read are dropped. */
  discard(): void {
    this.items.length = 0;
    this.end();
  }

  fail(error: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.failure = { error };
    if (this.waiter) this.takeWaiter().reject(error);
  }

  private takeWaiter() {
    const waiter = this.waiter!;
    this.waiter = undefined;
    return waiter;
  }

  private next(): Promise<IteratorResult<T>> {
    if (this.items.length > 0) return Promise.resolve({ value: this.items.shift()!, done: false });
    if (this.failure) {
      const { error } = this.failure;
      this.failure = undefined;
      return Promise.reject(error);
    }
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => this.next(),
      return: () => {
        if (!this.ended) this.onLeave();
        this.discard();
        this.failure = undefined;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
