import {
  ActivityFailure, ApplicationFailure, condition, defineQuery, defineSignal, getExternalWorkflowHandle, log, patched, proxyActivities, setHandler,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { HangUpOutcome } from '../src/providers/media-control/index.ts';
import { workflowIds } from '../src/temporal/names.ts';
import {
  callSignals, campaignSignals, nonRetryableErrorTypes, type CampaignCallSignal, type AnsweredBySignal, type CallAnsweredSignal, type CallEndedSignal, type CallLifecycleInput,
  type CallLifecycleResult, type CallLifecycleTiming, type CallPhase, type CarrierStatusSignal, type EndCallSignal,
} from '../src/temporal/shared.ts';
import type { DeliveryPolicy } from '../src/webhooks/policy.ts';
import { CallState, type CallEnd, type HangUpCause } from './call-state.ts';
import { continueWebhookDelivery, webhookQueueing } from './webhook-delivery.ts';

export const callAnsweredSignal = defineSignal<[CallAnsweredSignal]>(callSignals.callAnswered);
export const callEndedSignal = defineSignal<[CallEndedSignal]>(callSignals.callEnded);
export const endCallSignal = defineSignal<[EndCallSignal]>(callSignals.endCall);
export const carrierStatusSignal = defineSignal<[CarrierStatusSignal]>(callSignals.carrierStatus);
export const answeredBySignal = defineSignal<[AnsweredBySignal]>(callSignals.answeredBy);
const callEndedInCampaign = defineSignal<[CampaignCallSignal]>(campaignSignals.callEnded);
const callFinishedInCampaign = defineSignal<[CampaignCallSignal]>(campaignSignals.callFinished);

/** Where the call's lifecycle is, for the Temporal UI and for operators. */
export const callPhaseQuery = defineQuery<CallPhase>('phase');

const defaultTiming: CallLifecycleTiming = {
  // A web call's token lives as long: a browser that has not connected by then cannot connect any more.
  connectTimeoutSeconds: 60,
  ringTimeoutSeconds: 30,
  graceSeconds: 15,
  hangupWaitSeconds: 10,
};

// Reading and writing the call's row: quick, and worth patience when the database restarts.
const bookkeeping = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 20, nonRetryableErrorTypes },
});

// A hang-up is worth a few quick tries; after them the session is treated as gone.
const hangingUp = proxyActivities<Activities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 3, nonRetryableErrorTypes },
});

// Asking the carrier to dial or to drop a line: the dial carries the call's key, so a retry never dials twice.
const carrier = proxyActivities<Activities>({
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '5 seconds', maximumAttempts: 5, nonRetryableErrorTypes },
});

// A carrier prices a call some time after it ends (Twilio: "may not be immediately available"): asked again for minutes.
const pricing = proxyActivities<Activities>({
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10, nonRetryableErrorTypes },
});

// The activity itself turns a failing language model into no evaluation; retries are for everything else.
const evaluating = proxyActivities<Activities>({
  startToCloseTimeout: '3 minutes',
  retry: { initialInterval: '5 seconds', maximumAttempts: 3, nonRetryableErrorTypes },
});

function isGone(error: unknown): boolean {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof ApplicationFailure && cause.type === 'not_found';
}

/**
 * One call (`call-<id>`), from its creation to its bill: prepare it (its time limit from the assistant and the
 * balance), wait for it to connect, follow it live until its media session reports its end (or hang it up
 * when asked to, or when its time limit has passed even though the engine should have ended it), then store
 * its end, transcript, duration and cost with one ledger entry, and evaluate it; a campaign's call then tells
 * its campaign. The workflow passes the call's id; its activities read and write the call's row.
 */
export async function callLifecycleWorkflow(input: CallLifecycleInput): Promise<CallLifecycleResult> {
  const result = await followCall(input);
  if (input.campaignId !== undefined) await tellCampaign(input.campaignId, callFinishedInCampaign, input.callId);
  return result;
}

/**
 * Tells the call's campaign (its current run, which may have continued as new since it placed the call) that
 * the call ended or finished. A campaign that has ended meanwhile has nothing to settle: its runs adopt such leads.
 */
async function tellCampaign(campaignId: number, signal: typeof callEndedInCampaign, callId: number): Promise<void> {
  try {
    await getExternalWorkflowHandle(workflowIds.campaign(campaignId)).signal(signal, { callId });
  } catch (error) {
    log.info('the campaign was not told of the call: it is not running', { campaignId, callId, signal: signal.name, error: String(error) });
  }
}

async function followCall(input: CallLifecycleInput): Promise<CallLifecycleResult> {
  const timing = { ...defaultTiming, ...input.timing };
  const { callId } = input;
  const state = new CallState();
  setHandler(callAnsweredSignal, ({ at }) => state.answer(at));
  setHandler(callEndedSignal, (end) => state.reportEnd(end));
  setHandler(endCallSignal, ({ reason }) => state.requestEnd(reason));
  setHandler(carrierStatusSignal, (signal) => state.carrierStatus(signal));
  setHandler(answeredBySignal, (signal) => state.judge(signal));
  setHandler(callPhaseQuery, () => state.phase);

  try {
    const prepared = await bookkeeping.prepareCall({ callId });
    if (prepared.outcome === 'refused') {
      return await finish(input, state, { reason: prepared.reason, at: new Date().toISOString() });
    }
    const { maxSeconds, phone, dial } = prepared;
    // Histories from before voicemail handling carry no such field: false.
    state.endOnVoicemail = prepared.endCallOnVoicemail === true;

    if (dial) {
      state.phase = 'dialing';
      const dialed = await carrier.dialCall({ callId, ringTimeoutSeconds: timing.ringTimeoutSeconds });
      if (!dialed.dialed) return await finish(input, state, { reason: 'dial_failed', at: new Date().toISOString() });
    }
    state.phase = 'connecting';
    // A phone call rings until the callee answers (the carrier's `in-progress`, or its media stream starting) or
    // the carrier gives up (busy, no-answer, failed); a web call connects when the browser opens its media
    // socket, which the media gateway reports as `callAnswered`.
    await condition(() => state.connectingSettled, (dial ? timing.ringTimeoutSeconds : timing.connectTimeoutSeconds) * 1000);

    if (state.answeredAt !== undefined) {
      await bookkeeping.markAnswered({ callId, at: state.answeredAt });
      state.phase = 'in-progress';
      // The engine ends the call politely at its limit; this durable timer is the backstop when it cannot
      // (its process died): it survives any worker, and the grace lets the engine's own ending come first.
      const deadline = Date.parse(state.answeredAt) + (maxSeconds + timing.graceSeconds) * 1000;
      await followLiveCall(callId, state, deadline);
    }

    const end = state.reported ?? (phone ? await phoneEnd(state, timing) : undefined) ?? await hangUp(callId, state, timing, maxSeconds);
    // The carrier keeps a line up until told: whatever ended the call here ends it there too, but for a call
    // transferred to a number, whose line the carrier now bridges to that number.
    if (phone && state.carrierEnd === undefined && end.reason !== 'transferred') await dropLine(callId);
    return await finish(input, state, end, phone && state.answeredAt !== undefined);
  } catch (error) {
    if (!isGone(error)) throw error;
    state.phase = 'done';
    return { status: 'deleted', reason: 'deleted' };
  }
}

/**
 * The live call, until it has to end (or its deadline passes): each verdict on who answered is stored on the
 * call as it comes, so the call shows it while it runs.
 */
async function followLiveCall(callId: number, state: CallState, deadline: number): Promise<void> {
  for (;;) {
    const settled = await condition(() => state.endingDue || state.verdictToStore !== undefined, Math.max(deadline - Date.now(), 0));
    await storeVerdict(callId, state);
    if (!settled || state.endingDue) return;
  }
}

async function storeVerdict(callId: number, state: CallState): Promise<void> {
  const verdict = state.verdictToStore;
  if (!verdict) return;
  await bookkeeping.recordAnsweredBy({ callId, answeredBy: verdict.answeredBy });
  state.verdictStored(verdict);
}

/**
 * How a phone call ended when its media session has not said: the carrier's final word before an answer, a
 * ring that ran out (`no-answer`), or the callee hanging up at the carrier, whose media session reports its own
 * end a moment later. Undefined when the call is still up and has to be hung up.
 */
async function phoneEnd(state: CallState, timing: CallLifecycleTiming): Promise<CallEnd | undefined> {
  const unanswered = state.unansweredEnd;
  if (unanswered) return unanswered;
  if (state.answeredAt === undefined && state.endRequest === undefined) return { reason: 'no-answer', at: new Date().toISOString() };
  if (state.carrierEnd === undefined) return undefined;
  await condition(() => state.reported !== undefined, timing.hangupWaitSeconds * 1000);
  return state.reported ?? { reason: 'customer_hangup', at: state.carrierEnd.at };
}

/** Hangs the line up at the carrier; a carrier that cannot be told is logged, and the call still ends here. */
async function dropLine(callId: number): Promise<void> {
  try {
    await carrier.endCarrierCall({ callId });
  } catch (error) {
    if (isGone(error)) throw error;
    log.warn('the carrier could not be told to hang up', { callId, error: String(error) });
  }
}

/** Asks the media session to end, then waits briefly for it to report its end; without one, decides it. */
async function hangUp(callId: number, state: CallState, timing: CallLifecycleTiming, maxSeconds: number): Promise<CallEnd> {
  state.phase = 'ending';
  const cause: HangUpCause = state.hangUpCause;
  let outcome: HangUpOutcome;
  try {
    outcome = await hangingUp.requestHangup({ callId, reason: state.hangUpReason(cause) });
  } catch (error) {
    if (isGone(error)) throw error;
    log.warn('the media session could not be hung up: treating it as gone', { callId, error: String(error) });
    outcome = 'gone';
  }
  if (outcome === 'requested') await condition(() => state.reported !== undefined, timing.hangupWaitSeconds * 1000);
  return state.reported ?? state.unreportedEnd(cause, outcome, Date.now(), maxSeconds);
}

/**
 * Stores the call's end and bill, then evaluates it when its assistant asks for that, for a call the carrier
 * connected (`carried`) records what the carrier charged for it, and last sends the post-call webhook. A
 * campaign's call tells its campaign once it has ended, when more is to follow: the campaign may dial in its
 * place while it is evaluated. Telling, evaluating and pricing start together (one workflow task, where one
 * each used to follow the other: a campaign's calls are many, and each task costs the worker and Temporal).
 */
async function finish(input: CallLifecycleInput, state: CallState, end: CallEnd, carried = false): Promise<CallLifecycleResult> {
  const { callId, campaignId } = input;
  state.phase = 'finalizing';
  await storeVerdict(callId, state);
  const finalized = await bookkeeping.finalizeCall({ callId, reason: end.reason, endedAt: end.at });
  const together = patched('call-epilogue-together');
  const told = campaignId !== undefined && (finalized.evaluate || carried) ? tellCampaign(campaignId, callEndedInCampaign, callId) : undefined;
  if (!together) await told;
  if (finalized.evaluate) state.phase = 'evaluating';
  const evaluated = finalized.evaluate ? evaluate(callId) : undefined;
  if (!together) await evaluated;
  const priced = carried ? recordCarrierCost(callId) : undefined;
  await Promise.all([told, evaluated, priced]);
  // After the evaluation, so the payload carries it. Runs of calls that ended before webhooks existed skip it.
  if (finalized.webhook === true && patched('post-call-webhook')) await sendPostCallWebhook(callId, input.webhookPolicy);
  state.phase = 'done';
  return { status: finalized.status, reason: end.reason };
}

async function evaluate(callId: number): Promise<void> {
  try {
    await evaluating.evaluateCall({ callId });
  } catch (error) {
    // The call is over and billed: a missing evaluation is logged, not a failed call.
    log.warn('the post-call evaluation failed', { callId, error: String(error) });
  }
}

async function recordCarrierCost(callId: number): Promise<void> {
  try {
    await pricing.recordCarrierCost({ callId });
  } catch (error) {
    // The call is billed to its owner already; the carrier's price is for the record.
    log.warn('the carrier\'s price of the call could not be recorded', { callId, error: String(error) });
  }
}

/**
 * Queues the post-call webhook, whose activity makes the first attempt, and starts the delivery's retries when
 * that attempt asks for them; they outlive this run. A webhook that cannot be queued is logged: the call is over
 * and billed all the same.
 */
async function sendPostCallWebhook(callId: number, policy: Partial<DeliveryPolicy> | undefined): Promise<void> {
  try {
    const queued = await webhookQueueing.queuePostCallWebhook({ callId, ...(policy ? { policy } : {}) });
    if (queued.outcome === 'queued') await continueWebhookDelivery(queued, policy);
  } catch (error) {
    if (isGone(error)) return;
    log.warn('the post-call webhook could not be queued', { callId, error: String(error) });
  }
}
