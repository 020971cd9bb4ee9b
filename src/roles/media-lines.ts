import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { forgetMediaNode, MEDIA_REPORT_INTERVAL_MS, reportMediaNode } from '../billing/media-capacity.ts';
import type { Logger } from '../logger.ts';

/** How often the count of calls is looked at; a change is reported at once, no change every MEDIA_REPORT_INTERVAL_MS. */
const LOOK_MS = 500;

/**
 * Reports this media process's lines (MEDIA_MAX_CALLS, and the calls it carries) to the database, where a
 * campaign reads them before it dials (src/billing/media-capacity.ts): at start, whenever the count changes,
 * and as a heartbeat. Stopping takes the lines away. A failed report is logged; the next one tries again.
 */
export async function reportMediaLines(knex: Knex, options: { maxCalls: number; liveCalls: () => number; logger: Logger }): Promise<{ stop(): Promise<void> }> {
  const id = randomUUID();
  let reported = { liveCalls: -1, at: 0 };
  let reporting: Promise<void> = Promise.resolve();
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
  let busy = false;
  const timer = setInterval(() => {
    // A report still under way (a slow database) is not queued behind: the next look reports the count then.
    if (busy) return;
    busy = true;
    reporting = report().finally(() => {
      busy = false;
    });
  }, LOOK_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await reporting;
      await forgetMediaNode(knex, id).catch((error: unknown) => options.logger.warn({ err: error }, 'the media lines could not be withdrawn'));
    },
  };
}
