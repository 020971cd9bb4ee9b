/**
 * What workflows, activities and their starters share: workflow type names and the shapes that cross
 * between them. A leaf module (it imports only types), so deterministic workflow code may import it too. The
 * shapes of each workflow are in shared/, by workflow; this module names them all.
 */
export * from './shared/calls.ts';
export * from './shared/campaigns.ts';
export * from './shared/subscriptions.ts';
export * from './shared/webhooks.ts';

/** Workflow type names, as the API starts them: by name, so the API process never loads workflow code. */
export const workflowTypes = {
  selfCheck: 'platformSelfCheckWorkflow',
  documentIngestion: 'documentIngestionWorkflow',
  callLifecycle: 'callLifecycleWorkflow',
  phoneNumberSubscription: 'phoneNumberSubscriptionWorkflow',
  campaign: 'campaignWorkflow',
  webhookDelivery: 'webhookDeliveryWorkflow',
  conversationInactivity: 'conversationInactivityWorkflow',
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

/**
 * Failure types of what retrying cannot fix: an activity raises a non-retryable `ApplicationFailure` of one
 * of these types (the stable error codes of lib/errors.ts), and every workflow's retry policy lists them all.
 * `rejected`: the input cannot be processed (a corrupt file, a page without text); `not_found`: the record
 * the work is for is gone.
 */
export const nonRetryableErrorTypes = ['rejected', 'not_found', 'validation', 'unprocessable', 'insufficient_balance', 'call_unaffordable', 'payment_required', 'plan_limit', 'conflict', 'forbidden'];
