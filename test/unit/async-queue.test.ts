import { describe, expect, it } from 'vitest';
import { AsyncQueue } from '../../src/lib/async-queue.ts';

function flow(highWater: number, lowWater?: number) {
  const calls: string[] = [];
  return { calls, highWater, ...(lowWater === undefined ? {} : { lowWater }), pause: () => calls.push('pause'), resume: () => calls.push('resume') };
}

describe('AsyncQueue', () => {
  it('pauses its producer at the high-water mark and resumes it once the consumer caught up', async () => {
    const control = flow(8, 2);
    const queue = new AsyncQueue<number>({ flow: control });
    for (let i = 0; i < 10; i++) queue.push(i);
    expect(control.calls).toEqual(['pause']);
    queue.end();
    const read: number[] = [];
    for await (const item of queue) {
      read.push(item);
      if (read.length === 5) expect(control.calls).toEqual(['pause']);
    }
    expect(read).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(control.calls).toEqual(['pause', 'resume']);
  });

  it('resumes at half the high-water mark unless told otherwise', async () => {
    const control = flow(4);
    const queue = new AsyncQueue<number>({ flow: control });
    for (let i = 0; i < 4; i++) queue.push(i);
    const iterator = queue[Symbol.asyncIterator]();
    await iterator.next();
    expect(control.calls).toEqual(['pause']);
    await iterator.next();
    expect(control.calls).toEqual(['pause', 'resume']);
  });

  it('wakes a waiting consumer, and throws the failure after the items before it', async () => {
    const queue = new AsyncQueue<string>();
    const read: string[] = [];
    const reading = (async () => {
      for await (const item of queue) read.push(item);
    })();
    await Promise.resolve();
    queue.push('a');
    queue.push('b');
    queue.end(new Error('socket closed'));
    queue.push('after the end');
    await expect(reading).rejects.toThrow('socket closed');
    expect(read).toEqual(['a', 'b']);
  });

  it('stops at once when its signal aborts, whatever is still queued', async () => {
    const controller = new AbortController();
    const queue = new AsyncQueue<number>({ signal: controller.signal });
    queue.push(1);
    queue.push(2);
    const read: number[] = [];
    const reading = (async () => {
      for await (const item of queue) {
        read.push(item);
        controller.abort();
      }
    })();
    await reading;
    expect(read).toEqual([1]);
    const waiting = new AsyncQueue<number>({ signal: AbortSignal.abort() });
    waiting.push(3);
    expect(await waiting[Symbol.asyncIterator]().next()).toEqual({ value: undefined, done: true });
  });

  it('tells its producer when the consumer leaves early, and drops what was left', async () => {
    let left = 0;
    const queue = new AsyncQueue<number>({ onLeave: () => left++ });
    queue.push(1);
    queue.push(2);
    for await (const item of queue) if (item === 1) break;
    expect(left).toBe(1);
    expect(queue.size).toBe(0);
    expect(queue.closed).toBe(true);
  });

  it('clears: the consumer stops without an error, and later items are ignored', async () => {
    const queue = new AsyncQueue<number>();
    queue.push(1);
    queue.clear();
    queue.push(2);
    const read: number[] = [];
    for await (const item of queue) read.push(item);
    expect(read).toEqual([]);
  });
});
