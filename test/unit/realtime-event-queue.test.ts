import { describe, expect, it } from 'vitest';
import { EventQueue } from '../../src/providers/realtime/event-queue.ts';

function flow() {
  const calls: string[] = [];
  return { calls, pause: () => calls.push('pause'), resume: () => calls.push('resume') };
}

describe('EventQueue', () => {
  it('pauses its producer at the high-water mark and resumes it once the consumer caught up', async () => {
    const control = flow();
    const queue = new EventQueue<number>(8, control);
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

  it('wakes a waiting consumer, and throws the failure after the events before it', async () => {
    const queue = new EventQueue<string>(8, flow());
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
});
