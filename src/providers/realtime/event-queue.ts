/** How the queue slows its producer: a socket's `pause` and `resume`. */
export interface FlowControl {
  pause(): void;
  resume(): void;
}

/**
 * Events from a socket to one consumer, bounded without losing any: above `highWater` waiting events the
 * producer is paused (a paused WebSocket stops reading, so TCP slows the sender), and resumed once the
 * consumer has caught up to a quarter of it.
 */
export class EventQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private readonly highWater: number;
  private readonly flow: FlowControl;
  private paused = false;
  private ended = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;

  constructor(highWater: number, flow: FlowControl) {
    this.highWater = highWater;
    this.flow = flow;
  }

  push(item: T): void {
    if (this.ended) return;
    this.items.push(item);
    if (!this.paused && this.items.length >= this.highWater) {
      this.paused = true;
      this.flow.pause();
    }
    this.notify();
  }

  /** No more events: the consumer gets those waiting, then the end, or `failure` thrown. */
  end(failure?: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.failure = failure;
    this.notify();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      const item = this.items.shift();
      if (item !== undefined) {
        if (this.paused && this.items.length <= this.highWater / 4) {
          this.paused = false;
          this.flow.resume();
        }
        yield item;
        continue;
      }
      if (this.ended) {
        if (this.failure) throw this.failure;
        return;
      }
      await new Promise<void>((resolve) => { this.wake = resolve; });
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
