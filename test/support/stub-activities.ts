import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Activities } from '../../activities/index.ts';

/** Every activity the workflows can call; the type keeps the list complete as activities are added. */
const activityNames = Object.keys({
  recordSelfCheck: true,
  acquireDocumentSource: true,
  extractDocumentText: true,
  chunkDocumentText: true,
  embedDocumentChunks: true,
  finishDocument: true,
  discardDocumentWork: true,
  prepareCall: true,
  markAnswered: true,
  requestHangup: true,
  finalizeCall: true,
  evaluateCall: true,
  recordAnsweredBy: true,
  dialCall: true,
  endCarrierCall: true,
  recordCarrierCost: true,
  loadNumberSubscription: true,
  provisionPhoneNumber: true,
  chargeNumberPeriod: true,
  confirmNumberPeriod: true,
  markNumberPastDue: true,
  failPurchase: true,
  releasePhoneNumber: true,
  campaignRound: true,
  placeLeadCalls: true,
  finishCampaign: true,
  queuePostCallWebhook: true,
  attemptWebhookDelivery: true,
  endQuietConversation: true,
  endConversation: true,
  evaluateConversation: true,
  queueConversationEndedWebhook: true,
} satisfies Record<keyof Activities, true>) as (keyof Activities)[];

/** One activity attempt, as a stub saw it. */
export interface ActivityCall {
  name: keyof Activities;
  input: unknown;
  attempt: number;
}

/**
 * The full set of activities with `stubs` in place of the real ones. Any other activity fails at once with
 * "not stubbed: <name>", non-retryably so the workflow does not wait out a retry policy. Every attempt of
 * every activity is appended to `calls`, in the order they start.
 */
export function stubActivities(stubs: Partial<Activities>, calls: ActivityCall[] = []): Activities {
  const stubbed: Record<string, (input: unknown) => Promise<unknown>> = {};
  for (const name of activityNames) {
    const stub = stubs[name] as ((input: unknown) => Promise<unknown>) | undefined;
    stubbed[name] = async (input) => {
      calls.push({ name, input, attempt: Context.current().info.attempt });
      if (!stub) throw ApplicationFailure.nonRetryable(`not stubbed: ${name}`, 'NotStubbed');
      return stub(input);
    };
  }
  return stubbed as unknown as Activities;
}

/**
 * An activity body that heartbeats until the workflow cancels it, then ends cancelled as a real step does.
 * Cancellation reaches an activity only with the answer to a heartbeat, and the SDK sends one at most every
 * 0.8 × the heartbeat timeout: a few seconds for the document steps.
 */
export async function heartbeatUntilCancelled(): Promise<never> {
  const context = Context.current();
  context.heartbeat();
  const timer = setInterval(() => context.heartbeat(), 100);
  try {
    return await context.cancelled;
  } finally {
    clearInterval(timer);
  }
}

/** Holds a stub inside its activity until the test releases it, so a test can look at a running step. */
export interface ActivityGate {
  /** Resolves once the activity waits at the gate. */
  entered: Promise<void>;
  release(): void;
  /** Called by the stub: waits for `release`, or ends cancelled if the workflow cancels the activity first. */
  pass(): Promise<void>;
}

export function activityGate(): ActivityGate {
  const entered = Promise.withResolvers<void>();
  const released = Promise.withResolvers<void>();
  return {
    entered: entered.promise,
    release: () => released.resolve(),
    pass: () => {
      entered.resolve();
      return Promise.race([released.promise, Context.current().cancelled]);
    },
  };
}
