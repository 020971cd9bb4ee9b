import { condition, continueAsNew, defineSignal, log, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import {
  conversationSignals, nonRetryableErrorTypes, type ConversationInactivityInput, type ConversationInactivityResult, type MessageStoredSignal,
} from '../src/temporal/shared.ts';
import { continueWebhookDelivery, webhookQueueing } from './webhook-delivery.ts';

export const messageStoredSignal = defineSignal<[MessageStoredSignal]>(conversationSignals.messageStored);

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

/**
 * A widget conversation's inactivity timer (`conversation-<uuid>`), started by the first message stored with
 * signal-with-start; each later message's `messageStored` starts the quiet period again, with the timeout it
 * carries. When a period passes without one (a durable timer, not a poll), the conversation is marked ended and,
 * when its assistant sends the conversation-ended webhook, evaluated and announced; a delivery that needs
 * retries is a child that outlives this run. A message during that work starts another period in the same run;
 * after the end the run completes, and the next message starts a new one under the same id.
 */
export async function conversationInactivityWorkflow(input: ConversationInactivityInput): Promise<ConversationInactivityResult> {
  const { conversationId } = input;
  // A run continued as new carries the period in progress as one message.
  const state = { messages: input.carriedTimeoutMs === undefined ? 0 : 1, timeoutMs: input.carriedTimeoutMs ?? 0 };
  setHandler(messageStoredSignal, (signal) => {
    state.messages += 1;
    state.timeoutMs = signal.timeoutMs;
  });
  const result: ConversationInactivityResult = { periods: 0, deliveries: [] };
  let ended = 0;
  while (state.messages > ended) {
    ended = await quietPeriod(conversationId, state);
    result.periods += 1;
    const deliveryId = await endConversation(conversationId);
    if (deliveryId === 'gone') return result;
    if (deliveryId !== undefined) result.deliveries.push(deliveryId);
  }
  return result;
}

/**
 * Waits until the timeout passes with no new message; each message starts the wait again. Answers the count of
 * messages the period ended after (one arriving in the same instant starts another period). A long chat's
 * history is bounded: when Temporal suggests it, the run continues as new with the period just started.
 */
async function quietPeriod(conversationId: number, state: { messages: number; timeoutMs: number }): Promise<number> {
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
 * Ends the conversation, then (its webhook on) evaluates it and queues the webhook, whose activity makes the
 * first attempt; the delivery's workflow is started for the retries when that attempt asks for them. An
 * evaluation or a webhook that fails is logged: the conversation is ended all the same. Answers the delivery
 * queued, if any, or `gone`.
 */
async function endConversation(conversationId: number): Promise<number | 'gone' | undefined> {
  const ended = await bookkeeping.endConversation({ conversationId });
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
