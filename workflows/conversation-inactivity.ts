import { condition, continueAsNew, defineSignal, log, patched, proxyActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import {
  conversationSignals, nonRetryableErrorTypes, type ConversationInactivityInput, type ConversationInactivityResult, type EndedConversation,
  type MessageStoredSignal,
} from '../src/temporal/shared.ts';
import { continueWebhookDelivery, webhookQueueing } from './webhook-delivery.ts';

export const messageStoredSignal = defineSignal<[MessageStoredSignal]>(conversationSignals.messageStored);

/**
 * Runs started from here on sleep until the last message's time plus the timeout, read from the database when they
 * wake, instead of being signalled by every message; runs of the older code switch to that at their next wake.
 */
const READS_LAST_MESSAGE = 'conversation-timer-reads-last-message';

// Reading and writing the conversation's rows: quick, and worth patience when the database restarts.
const bookkeeping = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 20, nonRetryableErrorTypes },
});

// The activity itself turns a failing language model into no evaluation; retries are for everything else.
const evaluating = proxyActivities<Activities>({
  startToCloseTimeout: '3 minutes',
  retry: { initialInterval: '5 seconds', maximumAttempts: 3, nonRetryableErrorTypes },
});

interface TimerState {
  /** Signals received: each is a message that found no timer running. */
  messages: number;
  timeoutMs: number;
}

/**
 * A widget or WhatsApp conversation's inactivity timer (`conversation-<uuid>`), started with signal-with-start by
 * the first message that finds none running (resources/conversations/quiet-timer.ts). It sleeps for the timeout
 * (a run started with the timeout as its start delay has had it before it first runs), then reads when the last message was stored (`endQuietConversation`): a message since puts the end off, and it
 * sleeps again until that message's timeout has passed; a quiet conversation is marked ended and its timer given
 * back, and, when its assistant sends the conversation-ended webhook, evaluated and announced (a delivery that
 * needs retries is a child that outlives this run). A message stored while that goes on finds no timer and
 * signals this run, which then waits out another period; after the end the run completes, and the next message
 * starts a new one under the same id. Messages that find the timer running cost it nothing.
 */
export async function conversationInactivityWorkflow(input: ConversationInactivityInput): Promise<ConversationInactivityResult> {
  const { conversationId } = input;
  // A run continued as new carries the period in progress as one message.
  const state: TimerState = { messages: input.carriedTimeoutMs === undefined ? 0 : 1, timeoutMs: input.carriedTimeoutMs ?? 0 };
  setHandler(messageStoredSignal, (signal) => {
    state.messages += 1;
    state.timeoutMs = signal.timeoutMs;
  });
  const result: ConversationInactivityResult = { periods: 0, deliveries: [] };
  // A run started after a start delay of the timeout (starters.ts) reads the last message's time at once.
  if (patched(READS_LAST_MESSAGE)) return untilQuiet(conversationId, state, result, input.startDelayed ? 0 : state.timeoutMs);
  let ended = 0;
  while (state.messages > ended) {
    ended = await quietPeriod(conversationId, state);
    // A run started by the older code, each of whose messages signalled it: from its first wake here on, it reads.
    if (patched(READS_LAST_MESSAGE)) return untilQuiet(conversationId, state, result, 0);
    result.periods += 1;
    const deliveryId = await announceEnd(conversationId, await bookkeeping.endConversation({ conversationId }));
    if (deliveryId === 'gone') return result;
    if (deliveryId !== undefined) result.deliveries.push(deliveryId);
  }
  return result;
}

/**
 * Sleeps until the conversation has been quiet for its timeout since its last message, then ends it; waits out
 * another period when a message signalled the run meanwhile. `firstWaitMs` is the first sleep: the timeout, or
 * none for a run of the older code whose period has just passed. A long chat's history stays bounded: when
 * Temporal suggests it, the run continues as new with the wait in progress.
 */
async function untilQuiet(conversationId: number, state: TimerState, result: ConversationInactivityResult, firstWaitMs = state.timeoutMs): Promise<ConversationInactivityResult> {
  let waitMs = firstWaitMs;
  for (;;) {
    const signalled = state.messages;
    if (waitMs > 0) await sleep(waitMs);
    const check = await bookkeeping.endQuietConversation({ conversationId });
    if (check.outcome === 'gone') return result;
    if (check.outcome === 'active') {
      waitMs = check.remainingMs;
      if (workflowInfo().continueAsNewSuggested) await continueAsNew<typeof conversationInactivityWorkflow>({ conversationId, carriedTimeoutMs: waitMs });
      continue;
    }
    if (check.outcome === 'ended') {
      result.periods += 1;
      const deliveryId = await announceEnd(conversationId, check);
      if (deliveryId === 'gone') return result;
      if (deliveryId !== undefined) result.deliveries.push(deliveryId);
    }
    if (state.messages === signalled) return result;
    waitMs = state.timeoutMs;
  }
}

/**
 * The older code's wait, for the runs it started: until the timeout passes with no new message, each message
 * starting the wait again. Answers the count of messages the period ended after.
 */
async function quietPeriod(conversationId: number, state: TimerState): Promise<number> {
  for (;;) {
    const seen = state.messages;
    // `condition` is true when a message came within the period, false when the period passed in quiet.
    if (!await condition(() => state.messages !== seen, state.timeoutMs)) return seen;
    if (workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof conversationInactivityWorkflow>({ conversationId, carriedTimeoutMs: state.timeoutMs });
    }
  }
}

/**
 * After the conversation was marked ended: (its webhook on) evaluates it and queues the webhook, whose activity
 * makes the first attempt; the delivery's workflow is started for the retries when that attempt asks for them. An
 * evaluation or a webhook that fails is logged: the conversation is ended all the same. Answers the delivery
 * queued, if any, or `gone`.
 */
async function announceEnd(conversationId: number, ended: EndedConversation): Promise<number | 'gone' | undefined> {
  if (ended.outcome === 'gone') return 'gone';
  if (!ended.webhook) return undefined;
  if (ended.evaluate) {
    try {
      await evaluating.evaluateConversation({ conversationId });
    } catch (error) {
      log.warn('the post-conversation evaluation failed', { conversationId, error: String(error) });
    }
  }
  try {
    const queued = await webhookQueueing.queueConversationEndedWebhook({ conversationId });
    if (queued.outcome !== 'queued') return undefined;
    await continueWebhookDelivery(queued);
    return queued.deliveryId;
  } catch (error) {
    log.warn('the conversation-ended webhook could not be queued', { conversationId, error: String(error) });
    return undefined;
  }
}
