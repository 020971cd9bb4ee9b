/**
 * Audio chunks from a producer that pushes (a native callback, a child's stdout) to a consumer that pulls
 * (`for await`). The producer is asked to pause above `highWater` chunks waiting and to resume below it, so
 * a slow consumer bounds the memory instead of the queue growing without end.
 */
export class ChunkQueue {
  private readonly chunks: Int16Array[] = [];
  private ended = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  private paused = false;

  private readonly flow: { highWater: number; pause?: () => void; resume?: () => void };

  constructor(flow: { highWater: number; pause?: () => void; resume?: () => void } = { highWater: Infinity }) {
    this.flow = flow;
  }

  push(chunk: Int16Array): void {
    if (this.ended || chunk.length === 0) return;
    this.chunks.push(chunk);
    if (!this.paused && this.chunks.length >= this.flow.highWater && this.flow.pause) {
      this.paused = true;
      this.flow.pause();
    }
    this.signal();
  }

  /** No more chunks; with `error`, the consumer throws it after the chunks already queued. */
  end(error?: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.failure = error;
    this.signal();
  }

  /** Drops what is queued and ends at once: the consumer stops without an error. */
  clear(): void {
    this.chunks.length = 0;
    this.end();
  }

  private signal(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Int16Array> {
    for (;;) {
      const chunk = this.chunks.shift();
      if (chunk) {
        if (this.paused && this.chunks.length < this.flow.highWater / 2) {
          this.paused = false;
          this.flow.resume?.();
        }
        yield chunk;
        continue;
      }
      if (this.ended) {
        if (this.failure !== undefined) throw this.failure;
        return;
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }
}
