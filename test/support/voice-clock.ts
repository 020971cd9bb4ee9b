import type { VoiceClock } from '../../src/voice/clock.ts';

/** A voice clock that stands still until the test advances it, firing the timers that fall due on the way. */
export interface ManualVoiceClock extends VoiceClock {
  advance(ms: number): void;
}

export function manualVoiceClock(start = 1000): ManualVoiceClock {
  let now = start;
  let sequence = 0;
  const timers = new Map<number, { at: number; callback: () => void }>();
  return {
    now: () => now,
    setTimeout(callback, ms) {
      const id = ++sequence;
      timers.set(id, { at: now + Math.max(ms, 0), callback });
      return { cancel: () => void timers.delete(id) };
    },
    advance(ms) {
      const end = now + ms;
      for (;;) {
        let next: [number, { at: number; callback: () => void }] | undefined;
        for (const entry of timers) if (entry[1].at <= end && (!next || entry[1].at < next[1].at)) next = entry;
        if (!next) break;
        timers.delete(next[0]);
        now = next[1].at;
        next[1].callback();
      }
      now = end;
    },
  };
}
