/**
 * Time as the voice engine reads it: a monotonic clock in milliseconds and one-shot timers. Injected, so the
 * pacing, endpointing and silence rules are tested with time the test moves.
 */
export interface VoiceClock {
  now: () => number;
  /** Calls `callback` once after `ms` (at once when `ms` is not positive: a deadline already past); `cancel` stops it. */
  setTimeout: (callback: () => void, ms: number) => { cancel(): void };
}

export const systemVoiceClock: VoiceClock = {
  now: () => performance.now(),
  setTimeout(callback, ms) {
    // A deadline already past (the words came after the turn's silence ran out) fires now; Node would warn.
    const timer = setTimeout(callback, Math.max(ms, 0));
    return { cancel: () => clearTimeout(timer) };
  },
};
