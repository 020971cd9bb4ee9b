import type { Knex } from 'knex';
import { reportSessionsAlive } from '../calls/sessions.ts';
import type { Logger } from '../logger.ts';

/** How often a media process reports that its live sessions are alive. */
export const HEARTBEAT_MS = 2_000;

/**
 * Reports every `intervalMs` that this process's live call sessions are alive: one statement for all of them
 * (`media_seen_at`, on this process's clock, as the calls' answer and end times are). A call's workflow is told
 * the session is lost when these stop (lost-calls.ts), and a lost call is billed to its last report. One report
 * at a time; a failed one is logged, the next tries again.
 */
export function reportLiveSessions(knex: Knex, options: { liveCalls: () => number[]; logger: Logger; intervalMs?: number }): { stop(): Promise<void> } {
  let reporting: Promise<void> | undefined;
  const report = async () => {
    const ids = options.liveCalls();
    if (ids.length === 0) return;
    try {
      await reportSessionsAlive(knex, ids);
    } catch (error) {
      options.logger.warn({ err: error, calls: ids.length }, 'the live call sessions could not be reported');
    }
  };
  const timer = setInterval(() => {
    reporting ??= report().finally(() => {
      reporting = undefined;
    });
  }, options.intervalMs ?? HEARTBEAT_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await reporting;
    },
  };
}
