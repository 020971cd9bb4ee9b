import type { Knex } from 'knex';
import { claimLostCalls, releaseLostCall, type LostCalls } from '../calls/sessions.ts';
import { lostMediaSessions } from '../lib/metrics.ts';
import type { Logger } from '../logger.ts';
import { requestCallEnd } from '../temporal/call-signals.ts';
import type { TemporalClient } from '../temporal/client.ts';
import { HEARTBEAT_MS } from './call-heartbeats.ts';

/** A live call whose session has not been reported alive for this long is taken to be lost. */
export const LOST_AFTER_MS = 5 * HEARTBEAT_MS;
/** How often the worker looks for them. */
const SWEEP_MS = HEARTBEAT_MS;
/** The most calls ended in one look; the next look takes the rest. */
const BATCH = 100;

export interface LostCallDeps {
  knex: Knex;
  temporal: TemporalClient;
  logger: Logger;
}

/**
 * Ends the calls whose media session is lost (`which`, calls/sessions.ts): each is claimed once whoever else
 * looks (claimLostCalls) and its workflow asked to end it as `media_lost`. The workflow hangs up (finding the
 * session gone), drops a phone call's line at the carrier, and finalizes the call, which is billed to the
 * session's last report (activities/calls.ts). A workflow Temporal cannot be asked now is unmarked, for the next
 * look. Answers how many were ended.
 */
export async function endLostCalls(deps: LostCallDeps, which: LostCalls): Promise<number> {
  const { knex, temporal, logger } = deps;
  const claimed = await claimLostCalls(knex, which, BATCH);
  let ended = 0;
  for (const { id, mediaSeenAt } of claimed) {
    try {
      await requestCallEnd(temporal, Number(id), 'media_lost');
      logger.warn({ callId: Number(id), lastSeenAt: mediaSeenAt }, 'a call\'s media session is lost: ending the call');
      lostMediaSessions.inc();
      ended++;
    } catch (error) {
      logger.error({ err: error, callId: Number(id) }, 'could not ask the workflow of a call whose media session is lost to end it');
      await releaseLostCall(knex, Number(id)).catch(() => undefined);
    }
  }
  return ended;
}

/**
 * Looks every SWEEP_MS for live calls whose media session has not reported for LOST_AFTER_MS (its process was
 * killed or cut off) and ends them (endLostCalls): run by each worker, so calls end within seconds even when
 * their media process never comes back. A failed look is logged; the next tries again.
 */
export function sweepLostCalls(deps: LostCallDeps, options: { intervalMs?: number; lostAfterMs?: number } = {}): { stop(): Promise<void> } {
  let sweeping: Promise<void> | undefined;
  const sweep = () => {
    sweeping ??= endLostCalls(deps, { staleBefore: new Date(Date.now() - (options.lostAfterMs ?? LOST_AFTER_MS)) })
      .then(() => undefined, (error: unknown) => deps.logger.warn({ err: error }, 'could not look for calls whose media session is lost'))
      .finally(() => {
        sweeping = undefined;
      });
  };
  sweep();
  const timer = setInterval(sweep, options.intervalMs ?? SWEEP_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await sweeping;
    },
  };
}
