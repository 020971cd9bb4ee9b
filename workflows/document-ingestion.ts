import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  defineQuery,
  isCancellation,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { nonRetryableErrorTypes, type DocumentIngestionResult, type IngestionProgress } from '../src/temporal/shared.ts';

/** The current step and counts, for the Temporal UI and for operators. */
export const progressQuery = defineQuery<IngestionProgress>('progress');


// The SDK sends heartbeats at most every 0.8 × heartbeatTimeout, and a cancellation reaches an activity only
// with the answer to a heartbeat: short timeouts make deleting a document stop its crawl within seconds.
// The workflow waits for an activity to stop before cleaning up, so nothing is written after the clean-up.
const fetching = proxyActivities<Activities>({
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '5 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumAttempts: 3, nonRetryableErrorTypes },
});

// Extraction and chunking each run in a process of their own under a deadline of at most 5 minutes
// (INGEST_EXTRACT_TIMEOUT), well inside this timeout: a file that needs longer fails with that reason, not
// retried. They heartbeat while they wait, so deleting the document stops them.
const processing = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumAttempts: 3, nonRetryableErrorTypes },
});

const embedding = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '10 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  // Rate limits and a restarting embeddings server deserve patience; each attempt resumes where it stopped.
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '2 minutes', maximumAttempts: 8, nonRetryableErrorTypes },
});

const bookkeeping = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 20 },
});

function failureReason(error: unknown): string {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure && typeof cause.type === 'string' && nonRetryableErrorTypes.includes(cause.type)) return cause.message;
  const message = cause instanceof Error ? cause.message : String(cause);
  return `Processing failed: ${message}`;
}

function isGone(error: unknown): boolean {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof ApplicationFailure && cause.type === 'not_found';
}

/**
 * Ingests one document (`document-<id>`): acquire the source, extract text, chunk, embed, then mark it
 * active or failed and recompute its knowledge base's status. Cancelled when the document is deleted,
 * after which it removes whatever the interrupted step had written. Passes only the document id around;
 * intermediate results live in storage.
 */
export async function documentIngestionWorkflow(input: { documentId: number }): Promise<DocumentIngestionResult> {
  const progress: IngestionProgress = { step: 'acquiring', sources: 0, skipped: 0, sections: 0, chunks: 0, embedded: 0 };
  setHandler(progressQuery, () => progress);
  try {
    const acquired = await fetching.acquireDocumentSource(input);
    progress.sources = acquired.sources;
    progress.skipped = acquired.skipped;
    progress.step = 'extracting';
    progress.sections = (await processing.extractDocumentText(input)).sections;
    progress.step = 'chunking';
    progress.chunks = (await processing.chunkDocumentText(input)).chunks;
    progress.step = 'embedding';
    progress.embedded = (await embedding.embedDocumentChunks(input)).embedded;
    progress.step = 'finishing';
    await bookkeeping.finishDocument({ documentId: input.documentId, status: 'active' });
    progress.step = 'active';
    return { status: 'active' };
  } catch (error) {
    if (isCancellation(error) || isGone(error)) {
      progress.step = 'deleted';
      await CancellationScope.nonCancellable(() => bookkeeping.discardDocumentWork(input));
      if (isCancellation(error)) throw error;
      return { status: 'deleted' };
    }
    const reason = failureReason(error);
    progress.step = 'failed';
    progress.error = reason;
    await CancellationScope.nonCancellable(() => bookkeeping.finishDocument({ documentId: input.documentId, status: 'failed', error: reason }));
    return { status: 'failed', error: reason };
  }
}
