import { describe, expect, it } from 'vitest';
import { InFlight } from '../../src/lib/in-flight.ts';

describe('InFlight', () => {
  it('waits for the work it holds, failed or not, and for nothing once it has settled', async () => {
    const inFlight = new InFlight();
    const done: string[] = [];
    const slow = inFlight.track(new Promise<void>((resolve) => setTimeout(() => {
      done.push('slow');
      resolve();
    }, 30)));
    const failed = inFlight.track(Promise.reject(new Error('Temporal is down')));
    await expect(failed).rejects.toThrow('Temporal is down');
    await inFlight.settled(Date.now() + 5_000);
    expect(done).toEqual(['slow']);
    await slow;
    const started = Date.now();
    await inFlight.settled(Date.now() + 5_000);
    expect(Date.now() - started).toBeLessThan(50);
  });

  it('stops waiting at the deadline', async () => {
    const inFlight = new InFlight();
    void inFlight.track(new Promise(() => undefined));
    const started = Date.now();
    await inFlight.settled(Date.now() + 50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
