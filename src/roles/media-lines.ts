import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { forgetMediaNode, MEDIA_REPORT_INTERVAL_MS, reportMediaNode } from '../billing/media-capacity.ts';
import type { Logger } from '../logger.ts';

/** How often the count of calls is looked at besides the changes it is told of; no change is reported every MEDIA_REPORT_INTERVAL_MS. */
const LOOK_MS = 500;

export interface MediaLinesReport {
  /**
   * The count of calls changed: reported now, not at the next look, since a campaign waits for the line a call
   * frees (it reads the report when that call's end reaches it, a few hundred milliseconds later).
   */
  changed(): void;
  stop(): Promise<void>;
}

/**
 * Reports this media process's lines (MEDIA_MAX_CALLS, and the calls it carries) to the database, where a
 * campaign reads them before it dials (src/billing/media-capacity.ts): at start, at once whenever told the count
 * changed (and at each look, should a change go untold), and as a heartbeat. One report at a time: a change
 * while one is under way is reported right after it. Stopping takes the lines away. A failed report is logged;
 * the next one tries again.
 */
export async function reportMediaLines(
  knex: Knex,
  options: { maxCalls: number; liveCalls: () => number; logger: Logger; lookMs?: number },
): Promise<MediaLinesReport> {
  const id = randomUUID();
  let reported = { liveCalls: -1, at: 0 };
  const report = async () => {
    const liveCalls = options.liveCalls();
    if (liveCalls === reported.liveCalls && Date.now() - reported.at < MEDIA_REPORT_INTERVAL_MS) return;
    try {
      await reportMediaNode(knex, { id, maxCalls: options.maxCalls, liveCalls });
      reported = { liveCalls, at: Date.now() };
    } catch (error) {
      options.logger.warn({ err: error }, 'the media lines could not be reported');
    }
  };
  await report();
  let reporting: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const look = (): void => {
    if (stopped) return;
    // A report still under way (a slow database) is not queued behind more than once: the one after it reads the count then.
    if (reporting) {
      again = true;
      return;
    }
    reporting = report().finally(() => {
      reporting = undefined;
      if (again) {
        again = false;
        look();
      }
    });
  };
  const timer = setInterval(look, options.lookMs ?? LOOK_MS);
  timer.unref();
  return {
    changed: look,
    async stop() {
      stopped = true;
      clearInterval(timer);
      while (reporting) await reporting;
      await forgetMediaNode(knex, id).catch((error: unknown) => options.logger.warn({ err: error }, 'the media lines could not be withdrawn'));
    },
  };
}
