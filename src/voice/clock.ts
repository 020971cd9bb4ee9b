/**
 * Time as the voice engine reads it: a monotonic clock in milliseconds and one-shot timers. Injected, so the
 * pacing, endpointing and silence rules are tested with time the test moves.
 */
export interface VoiceClock {
  now: () => number;
  /** Calls `callback` once after `ms`; `cancel` stops it. */
  setTimeout: (callback: () => void, ms: number) => { cancel(): void };
}

export const systemVoiceClock: VoiceClock = {
  now: () => performance.now(),
  setTimeout(callback, ms) {
    const timer = setTimeout(callback, ms);
    return { cancel: () => clearTimeout(timer) };
  },
};
