import { WorkflowNotFoundError } from '@temporalio/client';
import type { Logger } from '../logger.ts';
import type { TemporalClient } from './client.ts';
import { workflowIds } from './names.ts';
import { callSignals, type AnsweredBySignal, type CallAnsweredSignal, type CallEndedSignal, type CarrierStatusSignal, type EndCallSignal } from './shared.ts';

/** A signal that cannot reach Temporal is tried again this often, with this much wait between tries. */
const attempts = 5;
const retryDelayMs = 500;

/**
 * Tells a call's workflow what its media session did. A workflow that is gone (the call was finalized by its
 * backstop, or deleted) needs nothing more; a Temporal frontend that is briefly away is tried again, so a
 * call's end is not lost to a restart of the server. A signal that still fails is logged: the workflow's
 * backstop timer ends the call without it.
 */
async function signalCall(temporal: TemporalClient, callId: number, name: string, payload: unknown, logger: Logger): Promise<void> {
  const handle = temporal.client.workflow.getHandle(workflowIds.call(callId));
  for (let attempt = 1; ; attempt++) {
    try {
      await handle.signal(name, payload);
      return;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) {
        logger.info({ callId, signal: name }, 'call workflow already closed: signal dropped');
        return;
      }
      if (attempt >= attempts) {
        logger.error({ err: error, callId, signal: name }, 'could not signal the call workflow');
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, retryDelayMs * attempt));
    }
  }
}

export function signalCallAnswered(temporal: TemporalClient, callId: number, at: Date, logger: Logger): Promise<void> {
  const payload: CallAnsweredSignal = { at: at.toISOString() };
  return signalCall(temporal, callId, callSignals.callAnswered, payload, logger);
}

/** Tells a call's workflow what its carrier reported (a status callback). */
export function signalCarrierStatus(temporal: TemporalClient, callId: number, status: CarrierStatusSignal, logger: Logger): Promise<void> {
  return signalCall(temporal, callId, callSignals.carrierStatus, status, logger);
}

/** Tells a call's workflow who answered, as the voice engine or the carrier judged it. */
export function signalAnsweredBy(temporal: TemporalClient, callId: number, verdict: AnsweredBySignal, logger: Logger): Promise<void> {
  return signalCall(temporal, callId, callSignals.answeredBy, verdict, logger);
}

export function signalCallEnded(temporal: TemporalClient, callId: number, reason: string, at: Date, logger: Logger): Promise<void> {
  const payload: CallEndedSignal = { reason, at: at.toISOString() };
  return signalCall(temporal, callId, callSignals.callEnded, payload, logger);
}

/**
 * Asks a call's workflow to end the call (hang up, then finish as for any ended call: its duration charged,
 * its transcript kept) and waits up to `waitMs` for it to have done so. A call whose workflow has already
 * closed, or never started, has nothing to end: that is fine. A workflow that takes longer goes on alone.
 */
export async function requestCallEnd(temporal: TemporalClient, callId: number, reason: string, waitMs = 0): Promise<void> {
  const request: EndCallSignal = { reason };
  const handle = temporal.client.workflow.getHandle(workflowIds.call(callId));
  try {
    await handle.signal(callSignals.endCall, request);
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return;
    throw error;
  }
  if (waitMs <= 0) return;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, waitMs);
  });
  // Whatever the workflow ends with (a failure included), the call is no longer live.
  await Promise.race([handle.result().then(() => undefined, () => undefined), timeout]);
  clearTimeout(timer);
}
