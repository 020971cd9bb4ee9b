import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { keepReserved } from '../../src/roles/call-reservations.ts';

const logger = createLogger({ log: { level: 'silent', pretty: false } });

describe('keepReserved', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A keeper over `grants` (what each request for more answers), recording when it asked and when it ended the call. */
  function keeper(grants: (number | undefined | Error)[], reservedSeconds = 60, maxSeconds = 600) {
    const asked: number[] = [];
    const ranOut: number[] = [];
    const kept = keepReserved({
      answeredAt: 0,
      reservedSeconds,
      maxSeconds,
      extend: () => {
        asked.push(Date.now());
        const grant = grants.shift();
        return grant instanceof Error ? Promise.reject(grant) : Promise.resolve(grant);
      },
      runOut: () => ranOut.push(Date.now()),
      logger,
    });
    return { asked, ranOut, kept };
  }

  it('asks for another minute 20 s before what the call holds runs out, each time it is granted', async () => {
    const { asked, ranOut } = keeper([120, 180]);
    await vi.advanceTimersByTimeAsync(162_000);
    expect(asked).toEqual([40_000, 100_000, 160_000]);
    expect(ranOut).toEqual([]);
  });

  it('asks again every 5 s when nothing more can be had, and ends the call when what it holds runs out', async () => {
    const { asked, ranOut } = keeper([undefined, undefined, new Error('the database is away'), undefined]);
    await vi.advanceTimersByTimeAsync(70_000);
    expect(asked).toEqual([40_000, 45_000, 50_000, 55_000]);
    expect(ranOut).toEqual([60_000]);
  });

  it('takes what a later request grants, such as a top-up meanwhile', async () => {
    const { asked, ranOut } = keeper([undefined, 90]);
    await vi.advanceTimersByTimeAsync(95_000);
    // Granted 30 s more at 45 s: it asks again 20 s before 90 s, finds nothing, and ends the call at 90 s.
    expect(asked).toEqual([40_000, 45_000, 70_000, 75_000, 80_000, 85_000]);
    expect(ranOut).toEqual([90_000]);
  });

  it('needs nothing once the call has reserved its whole limit, and nothing after it is stopped', async () => {
    const whole = keeper([], 600, 600);
    const reachesLimit = keeper([600], 540, 600);
    const stopped = keeper([]);
    stopped.kept.stop();
    await vi.advanceTimersByTimeAsync(700_000);
    expect(whole.asked).toEqual([]);
    expect(reachesLimit.asked).toEqual([520_000]);
    expect([...whole.ranOut, ...reachesLimit.ranOut, ...stopped.ranOut, ...stopped.asked]).toEqual([]);
  });
});
