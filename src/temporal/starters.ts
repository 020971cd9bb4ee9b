import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import type { documentIngestionWorkflow, platformSelfCheckWorkflow } from '../../workflows/index.ts';
import type { Logger } from '../logger.ts';
import type { TemporalClient } from './client.ts';
import { searchAttributes, workflowIds } from './names.ts';
import { callSignals, workflowTypes, type EndCallRequest, type SelfCheckResult } from './shared.ts';

/**
 * Starts the ingestion of a document. A second start of the same document finds the first one running:
 * that is logged with the run it found, and the caller goes on as if it had started it.
 */
export async function startDocumentIngestion(temporal: TemporalClient, document: { id: number; userId: number }, logger: Logger): Promise<void> {
  const workflowId = workflowIds.document(document.id);
  try {
    await temporal.client.workflow.start<typeof documentIngestionWorkflow>(workflowTypes.documentIngestion, {
      taskQueue: temporal.taskQueue,
      workflowId,
      args: [{ documentId: document.id }],
      typedSearchAttributes: [{ key: searchAttributes.userId, value: document.userId }],
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    const running = await temporal.client.workflow.getHandle(workflowId).describe().catch(() => undefined);
    logger.warn({ workflowId, runId: running?.runId }, 'document ingestion already running: not started again');
  }
}

/** Asks a running ingestion to stop; one that has finished, or never started, is fine. */
export async function cancelDocumentIngestion(temporal: TemporalClient, documentId: number): Promise<void> {
  try {
    await temporal.client.workflow.getHandle(workflowIds.document(documentId)).cancel();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return;
    throw error;
  }
}

/**
 * Asks a call's workflow to end the call (hang up, then finish as for any ended call). A call whose workflow
 * has already closed, or never started, has nothing to end: that is fine.
 */
export async function requestCallEnd(temporal: TemporalClient, callId: number, reason: string): Promise<void> {
  const request: EndCallRequest = { reason };
  try {
    await temporal.client.workflow.getHandle(workflowIds.call(callId)).signal(callSignals.endCall, request);
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return;
    throw error;
  }
}

/** Runs the self-check workflow through a worker and waits for its answer (readiness with `deep=true`). */
export function runSelfCheck(temporal: TemporalClient, checkId: string): Promise<SelfCheckResult> {
  return temporal.client.workflow.execute<typeof platformSelfCheckWorkflow>(workflowTypes.selfCheck, {
    taskQueue: temporal.taskQueue,
    workflowId: workflowIds.selfCheck(checkId),
    args: [{ checkId }],
    workflowExecutionTimeout: '15 seconds',
  });
}
