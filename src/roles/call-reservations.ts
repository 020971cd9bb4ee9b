import type { Logger } from '../logger.ts';

/** How long before a call's reservation runs out the media role asks for more. */
const EXTEND_AHEAD_MS = 20_000;
/** How often it asks again when nothing more could be reserved, until the reservation runs out. */
const RETRY_MS = 5_000;

export interface ReservationKeeperOptions {
  /** When the call was answered (epoch milliseconds): its reservation counts from then. */
  answeredAt: number;
  /** The seconds reserved so far, and the most the call may last. */
  reservedSeconds: number;
  maxSeconds: number;
  /** Reserves more (billing/call-reservations.ts `extendCallReservation`): the seconds now reserved, or undefined. */
  extend(): Promise<number | undefined>;
  /** What the call holds has run out and nothing more could be reserved: the call ends (its goodbye is not billed). */
  runOut(): void;
  logger: Logger;
  /** For tests: how far ahead to extend, and how often to try again. */
  aheadMs?: number;
  retryMs?: number;
}

/**
 * Keeps a live call's reservation ahead of it, a minute at a time (docs/decisions.md, "Calls reserve the
 * balance a minute at a time"): EXTEND_AHEAD_MS before what it holds runs out it asks for more, and when none
 * can be had (the balance is spent or held by the owner's other calls) it asks again every RETRY_MS, so a
 * top-up or another call's end in the meantime still counts; when the reservation runs out the call is ended.
 * A call that has reserved its whole limit needs nothing more: its engine ends it there. A failed request is
 * logged and counts as none.
 */
export function keepReserved(options: ReservationKeeperOptions): { stop(): void } {
  const aheadMs = options.aheadMs ?? EXTEND_AHEAD_MS;
  const retryMs = options.retryMs ?? RETRY_MS;
  let reserved = options.reservedSeconds;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const runsOutAt = () => options.answeredAt + reserved * 1000;

  const wake = (at: number, then: () => void) => {
    timer = setTimeout(then, Math.max(Math.min(at, runsOutAt()) - Date.now(), 0));
  };

  const ask = async (): Promise<void> => {
    if (stopped) return;
    if (Date.now() >= runsOutAt()) {
      stopped = true;
      options.runOut();
      return;
    }
    let next: number | undefined;
    try {
      next = await options.extend();
    } catch (error) {
      options.logger.warn({ err: error }, 'the call\'s reservation could not be extended');
    }
    if (stopped) return;
    const extended = next !== undefined && next > reserved;
    if (extended) reserved = next as number;
    if (reserved >= options.maxSeconds) return;
    wake(extended ? runsOutAt() - aheadMs : Date.now() + retryMs, () => void ask());
  };

  if (reserved < options.maxSeconds) wake(runsOutAt() - aheadMs, () => void ask());
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
