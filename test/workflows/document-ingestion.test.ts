import { ApplicationFailure } from '@temporalio/activity';
import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Activities } from '../../activities/index.ts';
import { createLogger } from '../../src/logger.ts';
import { searchAttributes, workflowIds } from '../../src/temporal/names.ts';
import { nonRetryableErrorTypes } from '../../src/temporal/shared.ts';
import { cancelDocumentIngestion, startDocumentIngestion } from '../../src/temporal/starters.ts';
import { progressQuery, type documentIngestionWorkflow } from '../../workflows/document-ingestion.ts';
import { activityGate, heartbeatUntilCancelled, startStubWorker, type StubWorker } from '../support/workflows.ts';

const logger = createLogger({ log: { level: 'silent', pretty: false } });
const userId = 41;
let lastDocumentId = 0;

/** Each test ingests a document of its own (one workflow id each) on a worker with its stubs. */
async function ingest(stubs: Partial<Activities>) {
  const worker = await startStubWorker(stubs);
  onTestFinished(() => worker.stop());
  const documentId = ++lastDocumentId;
  await startDocumentIngestion(worker.temporal, { id: documentId, userId }, logger);
  const handle = worker.temporal.client.workflow.getHandle<typeof documentIngestionWorkflow>(workflowIds.document(documentId));
  return { worker, documentId, handle };
}

const steps = {
  acquireDocumentSource: () => Promise.resolve({ sources: 2, skipped: 1 }),
  extractDocumentText: () => Promise.resolve({ sections: 3, characters: 1200 }),
  chunkDocumentText: () => Promise.resolve({ chunks: 4 }),
  embedDocumentChunks: () => Promise.resolve({ embedded: 4 }),
  finishDocument: () => Promise.resolve(),
  discardDocumentWork: () => Promise.resolve(),
} satisfies Partial<Activities>;

const names = (worker: StubWorker) => worker.calls.map((call) => call.name);
const attemptsOf = (worker: StubWorker, name: keyof Activities) =>
  worker.calls.filter((call) => call.name === name).map((call) => call.attempt);

describe('documentIngestionWorkflow', () => {
  it('runs the steps in order, answers the progress query on the way, and ends active', async () => {
    const embedding = activityGate();
    const { worker, documentId, handle } = await ingest({
      ...steps,
      embedDocumentChunks: async () => {
        await embedding.pass();
        return { embedded: 4 };
      },
    });

    await embedding.entered;
    expect(await handle.query(progressQuery)).toEqual({ step: 'embedding', sources: 2, skipped: 1, sections: 3, chunks: 4, embedded: 0 });
    embedding.release();

    expect(await handle.result()).toEqual({ status: 'active' });
    expect(names(worker)).toEqual(['acquireDocumentSource', 'extractDocumentText', 'chunkDocumentText', 'embedDocumentChunks', 'finishDocument']);
    expect(worker.calls.slice(0, 4).map((call) => call.input)).toEqual(Array(4).fill({ documentId }));
    expect(worker.calls[4]?.input).toEqual({ documentId, status: 'active' });
    expect(await handle.query(progressQuery)).toEqual({ step: 'active', sources: 2, skipped: 1, sections: 3, chunks: 4, embedded: 4 });
    expect((await handle.describe()).typedSearchAttributes.get(searchAttributes.userId)).toBe(userId);
  });

  it('when cancelled mid-step: waits for the step to stop, discards its work, and ends cancelled', async () => {
    const acquiring = Promise.withResolvers<void>();
    const { worker, documentId, handle } = await ingest({
      ...steps,
      acquireDocumentSource: () => {
        acquiring.resolve();
        return heartbeatUntilCancelled();
      },
    });

    await acquiring.promise;
    await cancelDocumentIngestion(worker.temporal, documentId);

    const failure = await handle.result().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    expect(names(worker)).toEqual(['acquireDocumentSource', 'discardDocumentWork']);
    expect(worker.calls[1]?.input).toEqual({ documentId });
    expect((await handle.query(progressQuery)).step).toBe('deleted');
  });

  it('does not retry a non-retryable failure: the document fails with its message as the reason', async () => {
    const reason = 'The PDF is protected by a password.';
    const { worker, documentId, handle } = await ingest({
      ...steps,
      extractDocumentText: () => Promise.reject(ApplicationFailure.nonRetryable(reason, 'rejected')),
    });

    expect(await handle.result()).toEqual({ status: 'failed', error: reason });
    expect(attemptsOf(worker, 'extractDocumentText')).toEqual([1]);
    expect(names(worker)).toEqual(['acquireDocumentSource', 'extractDocumentText', 'finishDocument']);
    expect(worker.calls[2]?.input).toEqual({ documentId, status: 'failed', error: reason });
    expect(await handle.query(progressQuery)).toMatchObject({ step: 'failed', error: reason });
  });

  it.each(nonRetryableErrorTypes.filter((type) => type !== 'not_found'))(
    'does not retry a failure of type %s even when the activity marks it retryable: the retry policy lists it',
    async (type) => {
      const reason = `A ${type} failure.`;
      const { worker, handle } = await ingest({
        ...steps,
        embedDocumentChunks: () => Promise.reject(ApplicationFailure.retryable(reason, type)),
      });

      expect(await handle.result()).toEqual({ status: 'failed', error: reason });
      expect(attemptsOf(worker, 'embedDocumentChunks')).toEqual([1]);
    },
  );

  it('retries a failure that retrying can fix, and goes on where it stopped', async () => {
    let failures = 0;
    const { worker, handle } = await ingest({
      ...steps,
      chunkDocumentText: () => failures++ === 0 ? Promise.reject(new Error('connection reset')) : Promise.resolve({ chunks: 4 }),
    });

    expect(await handle.result()).toEqual({ status: 'active' });
    expect(attemptsOf(worker, 'chunkDocumentText')).toEqual([1, 2]);
    expect(attemptsOf(worker, 'acquireDocumentSource')).toEqual([1]);
  });

  it('when the document is gone (not_found): discards the work, finishes nothing, and ends deleted', async () => {
    const { worker, documentId, handle } = await ingest({
      ...steps,
      chunkDocumentText: (input) => Promise.reject(ApplicationFailure.nonRetryable(`Document ${input.documentId} no longer exists.`, 'not_found')),
    });

    expect(await handle.result()).toEqual({ status: 'deleted' });
    expect(names(worker)).toEqual(['acquireDocumentSource', 'extractDocumentText', 'chunkDocumentText', 'discardDocumentWork']);
    expect(worker.calls[3]?.input).toEqual({ documentId });
    expect((await handle.describe()).status.name).toBe('COMPLETED');
    expect((await handle.query(progressQuery)).step).toBe('deleted');
  });
});
