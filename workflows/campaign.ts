import {
  condition, continueAsNew, defineQuery, defineSignal, getExternalWorkflowHandle, log, ParentClosePolicy, patched, proxyActivities, setHandler, startChild,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { searchAttributes, workflowIds } from '../src/temporal/names.ts';
import {
  callSignals, campaignSignals, nonRetryableErrorTypes, type CampaignCallSignal, type CampaignInput, type CampaignResult, type CampaignRunProgress, type DueLead,
  type EndCallSignal, type PlacedLeadCall,
} from '../src/temporal/shared.ts';
import { callLifecycleWorkflow } from './call-lifecycle.ts';
import { CampaignState } from './campaign-state.ts';

export const resumeSignal = defineSignal(campaignSignals.resume);
export const stopSignal = defineSignal(campaignSignals.stop);
export const leadsAddedSignal = defineSignal(campaignSignals.leadsAdded);
export const settingsChangedSignal = defineSignal(campaignSignals.settingsChanged);
export const callEndedSignal = defineSignal<[CampaignCallSignal]>(campaignSignals.callEnded);
export const callFinishedSignal = defineSignal<[CampaignCallSignal]>(campaignSignals.callFinished);
export const campaignProgressQuery = defineQuery<CampaignRunProgress>('progress');
const endCallSignal = defineSignal<[EndCallSignal]>(callSignals.endCall);

/**
 * Calls placed by one run before it continues as new: its history stays about four thousand events (some twenty
 * a call: its child's start and end, its two signals, the workflow tasks they wake, the rounds), which a worker
 * replays in well under a second after a restart or an eviction. Runs of 500 reached 2 MB and 10,000 events,
 * whose replay on a loaded worker outlasted the 10 s workflow task timeout (the dispatch bench at 10,000 leads).
 */
const DIALS_PER_RUN = 200;
/** What runs begun before DIALS_PER_RUN came down continue as new after. */
const DIALS_PER_RUN_BEFORE = 500;
/** How long a due lead waits when the account had no free slot and no call of the campaign ends first. */
const NO_SLOT_WAIT_MS = 5_000;
/** The end reason of a call the campaign's stop ends. */
const STOP_REASON = 'campaign_stopped';

// Reading and writing the campaign's rows: quick, and worth patience when the database restarts.
const bookkeeping = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 20, nonRetryableErrorTypes },
});

/**
 * One campaign (`campaign-<id>`): rounds that settle the leads of the calls that finished and read the campaign
 * and its due leads from the database (one activity), and do what CampaignState decides: dial (one activity
 * creates the due leads' call rows and takes their account slots, then each call starts at once as a child
 * `callLifecycle`, `call-<id>`), ask the calls in progress to end when stopped, sleep until the window opens or
 * the next lead falls due, complete, or continue as new after DIALS_PER_RUN calls, handing its calls in
 * progress to the next run. Each call tells the campaign's workflow (whichever run is current) when it ended
 * (`callEnded`: its place is free while it is evaluated) and when it finished (`callFinished`: its lead can be
 * settled); a child's result says it too, should its signal never come. The leads' state is in the database;
 * the run holds only the calls it follows.
 */
export async function campaignWorkflow(input: CampaignInput): Promise<CampaignResult> {
  const { campaignId } = input;
  // Runs begun before calls were started without waiting for Temporal to confirm each, before a round that
  // filled every place waited for a change rather than reading the campaign again, and before runs were
  // shortened to DIALS_PER_RUN, replay as they ran.
  const pipelined = patched('campaign-pipelined-dial');
  const state = new CampaignState(input.dialsPerRun ?? (pipelined ? DIALS_PER_RUN : DIALS_PER_RUN_BEFORE), input.noSlotWaitMs ?? NO_SLOT_WAIT_MS, input.carried);
  setHandler(resumeSignal, () => state.resume());
  setHandler(stopSignal, () => state.stop());
  setHandler(leadsAddedSignal, () => state.wake());
  setHandler(settingsChangedSignal, () => state.wake());
  setHandler(callEndedSignal, ({ callId }) => state.callEnded(callId));
  setHandler(callFinishedSignal, ({ callId }) => state.callFinished(callId));
  setHandler(campaignProgressQuery, () => state.progress);

  /** Children started and not yet confirmed started: a run neither continues as new nor ends before they are. */
  const starting = new Set<Promise<void>>();
  /** Why a call's workflow could not be started, until the run's next step throws it. */
  let startFailure: Error | undefined;

  async function startCall(placed: Extract<PlacedLeadCall, { outcome: 'placed' }>): Promise<void> {
    const { callId } = placed;
    state.placed(callId);
    // Abandoned, not terminated, when this run ends: a call in progress is never cut off by the campaign's run.
    const call = await startChild(callLifecycleWorkflow, {
      workflowId: workflowIds.call(callId),
      args: [{ callId, campaignId, ...(input.callTiming ? { timing: input.callTiming } : {}) }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: [
        { key: searchAttributes.userId, value: placed.userId },
        { key: searchAttributes.assistantId, value: placed.assistantId },
        { key: searchAttributes.campaignId, value: campaignId },
      ],
    });
    // The call's row says how it ended; its workflow failing (it should not) settles the lead all the same.
    void call.result().catch((error: unknown) => log.warn('a call of the campaign failed', { campaignId, callId, error: String(error) }))
      .finally(() => state.callFinished(callId));
  }

  /**
   * Starts a placed call's workflow. The run goes on at once (its next round, or its wait for a freed place)
   * while Temporal starts it: a batch's starts are confirmed in a workflow task of their own, which a freed
   * place need not wait for. A start that fails (none should: each call's id is new) fails the run's next
   * workflow task, as an awaited start did, so it is seen and retried rather than leaving the call unfollowed.
   */
  function launchCall(placed: Extract<PlacedLeadCall, { outcome: 'placed' }>): void {
    const started: Promise<void> = startCall(placed).catch((error: unknown) => {
      startFailure ??= error instanceof Error ? error : new Error(String(error));
      state.wake();
    }).finally(() => starting.delete(started));
    starting.add(started);
  }

  async function allStarted(): Promise<void> {
    while (starting.size > 0) await Promise.all([...starting]);
  }

  async function dial(leads: DueLead[]): Promise<void> {
    const { outcomes } = await bookkeeping.placeLeadCalls({ campaignId, leads });
    const placed = outcomes.filter((outcome) => outcome.outcome === 'placed');
    for (const outcome of outcomes) {
      if (outcome.outcome === 'no-slot') state.noSlot(Date.now());
      if (outcome.outcome === 'halt') {
        log.warn('the campaign cannot dial: stopped', { campaignId, reason: outcome.reason });
        state.stop();
      }
    }
    if (pipelined) placed.forEach(launchCall);
    else await Promise.all(placed.map(startCall));
  }

  for (;;) {
    if (startFailure !== undefined) throw startFailure;
    // Begun before the settling: a call that finishes during the round marks the round changed, so the
    // round's wait cannot sleep past it.
    state.beginRound();
    const round = await bookkeeping.campaignRound({ campaignId, following: [...state.inFlight], ended: [...state.ended], settle: state.takeFinished() });
    for (const callId of round.overdue) state.callFinished(callId);
    const step = state.next(round, Date.now());
    switch (step.kind) {
      case 'dial':
        await dial(step.leads);
        // Every place taken: nothing to do until something changes (a call ends, a signal), so no round reads
        // the campaign meanwhile, and the first place freed is dialed by the round it wakes.
        if (pipelined && state.inFlight.size >= (round.campaign?.maxCallsInParallel ?? 0)) await condition(() => state.changed);
        break;
      case 'end-calls':
        // A call is asked to end once its workflow is there to hear it.
        await allStarted();
        for (const callId of step.callIds) {
          state.endRequested(callId);
          await getExternalWorkflowHandle(workflowIds.call(callId)).signal(endCallSignal, { reason: STOP_REASON })
            .catch((error: unknown) => log.warn('a call of the campaign could not be asked to end', { campaignId, callId, error: String(error) }));
        }
        break;
      case 'wait':
        if (step.untilMs === null) await condition(() => state.changed);
        else if (step.untilMs > Date.now()) await condition(() => state.changed, step.untilMs - Date.now());
        break;
      case 'continue-as-new':
        await allStarted();
        return continueAsNew<typeof campaignWorkflow>({ ...input, carried: state.carry() });
      case 'finish':
        await allStarted();
        if (step.reason === 'completed') await bookkeeping.finishCampaign({ campaignId, status: 'completed' });
        return { reason: step.reason };
    }
  }
}
