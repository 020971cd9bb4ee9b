/**
 * What workflows, activities and their starters share: workflow type names and the shapes that cross
 * between them. A leaf module (it imports nothing), so deterministic workflow code may import it too.
 */

/** Workflow type names, as the API starts them: by name, so the API process never loads workflow code. */
export const workflowTypes = {
  selfCheck: 'platformSelfCheckWorkflow',
  documentIngestion: 'documentIngestionWorkflow',
} as const;

/** Signal names of the callLifecycle workflow (`call-<id>`), as the API and the media role send them. */
export const callSignals = {
  /** Hang up a call that is still ringing or in progress; payload `EndCallRequest`. */
  endCall: 'endCall',
} as const;

export interface EndCallRequest {
  /** Why the call is ended, stored as its end reason (e.g. `deleted` when its record is deleted). */
  reason: string;
}

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

/**
 * Failure types of what retrying cannot fix: an activity raises a non-retryable `ApplicationFailure` of one
 * of these types (the stable error codes of lib/errors.ts), and every workflow's retry policy lists them all.
 * `rejected`: the input cannot be processed (a corrupt file, a page without text); `not_found`: the record
 * the work is for is gone.
 */
export const nonRetryableErrorTypes = ['rejected', 'not_found', 'validation', 'insufficient_balance', 'plan_limit', 'conflict', 'forbidden'];
