/**
 * What workflows, activities and their starters share: workflow type names and the shapes that cross
 * between them. A leaf module (it imports nothing), so deterministic workflow code may import it too.
 */

/** Workflow type names, as the API starts them: by name, so the API process never loads workflow code. */
export const workflowTypes = {
  selfCheck: 'platformSelfCheckWorkflow',
  documentIngestion: 'documentIngestionWorkflow',
  callLifecycle: 'callLifecycleWorkflow',
} as const;

export interface SelfCheckResult {
  checkId: string;
  completedAt: string;
}

/** What `progressQuery` answers while a document is ingested. */
export interface IngestionProgress {
  step: 'acquiring' | 'extracting' | 'chunking' | 'embedding' | 'finishing' | 'active' | 'failed' | 'deleted';
  /** Pages fetched, or 1 for a file. */
  sources: number;
  /** Pages skipped (refused, not HTML, robots.txt, errors). */
  skipped: number;
  sections: number;
  chunks: number;
  embedded: number;
  error?: string;
}

export interface DocumentIngestionResult {
  status: 'active' | 'failed' | 'deleted';
  error?: string;
}

/** The signals a call's lifecycle workflow takes, by name: the media gateway's and the API's. */
export const callSignals = {
  /** The media session connected, or the callee answered: `CallAnsweredSignal`. */
  callAnswered: 'callAnswered',
  /** The media session ended: `CallEndedSignal`. */
  callEnded: 'callEnded',
  /** Someone asks for the call to end (the call is deleted while live, an operator): `EndCallSignal`. */
  endCall: 'endCall',
} as const;

export interface CallAnsweredSignal {
  /** ISO 8601. */
  at: string;
}

/**
 * Why the media session ended, in the engine's words: `customer_hangup`, `assistant_end_call`, `max_duration`,
 * `silence_timeout`, `balance_exhausted`, `error`, `media_lost`.
 */
export interface CallEndedSignal {
  reason: string;
  /** ISO 8601. */
  at: string;
}

export interface EndCallSignal {
  reason: string;
}

/**
 * A call's lifecycle takes the call's id and nothing else the call holds (the rest is read by its activities).
 * `timing` shortens the waits for tests; production starts never set it.
 */
export interface CallLifecycleInput {
  callId: number;
  timing?: Partial<CallLifecycleTiming>;
}

export interface CallLifecycleTiming {
  /** How long a created call may take to connect (a web call: the browser opens its media socket). */
  connectTimeoutSeconds: number;
  /** How long past the call's time limit the media session gets to report its end before it is hung up. */
  graceSeconds: number;
  /** How long a hung-up session gets to report its end before the call is ended without it. */
  hangupWaitSeconds: number;
}

export interface CallLifecycleResult {
  /** The call's final status (the contract's), or `deleted` when the call's record went away mid-call. */
  status: string;
  reason: string;
}

/** What `callPhaseQuery` answers: where the call's lifecycle is. */
export type CallPhase = 'preparing' | 'connecting' | 'in-progress' | 'ending' | 'finalizing' | 'evaluating' | 'done';

/**
 * Failure types of what retrying cannot fix: an activity raises a non-retryable `ApplicationFailure` of one
 * of these types (the stable error codes of lib/errors.ts), and every workflow's retry policy lists them all.
 * `rejected`: the input cannot be processed (a corrupt file, a page without text); `not_found`: the record
 * the work is for is gone.
 */
export const nonRetryableErrorTypes = ['rejected', 'not_found', 'validation', 'insufficient_balance', 'call_unaffordable', 'payment_required', 'plan_limit', 'conflict', 'forbidden'];
