import type { Clock } from '../../src/lib/clock.ts';

/** A clock that stands still until the test moves it, so expiry and lockouts are tested without waiting. */
export interface TestClock {
  now: Clock;
  advance(milliseconds: number): void;
}

export function testClock(start = new Date()): TestClock {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    advance: (milliseconds) => {
      current += milliseconds;
    },
  };
}
