import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import type { callLifecycleWorkflow, documentIngestionWorkflow, platformSelfCheckWorkflow } from '../../workflows/index.ts';
import type { Logger } from '../logger.ts';
import type { TemporalClient } from './client.ts';
import { searchAttributes, workflowIds } from './names.ts';
import { workflowTypes, type SelfCheckResult } from './shared.ts';

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
 * Starts the lifecycle of a call just created. A second start of the same call finds the first one running,
 * as for documents; the assistant's id goes into the search attributes while the call has one.
 */
export async function startCallLifecycle(
  temporal: TemporalClient,
  call: { id: number; userId: number; assistantId: number | null },
  logger: Logger,
): Promise<void> {
  const workflowId = workflowIds.call(call.id);
  try {
    await temporal.client.workflow.start<typeof callLifecycleWorkflow>(workflowTypes.callLifecycle, {
      taskQueue: temporal.taskQueue,
      workflowId,
      args: [{ callId: call.id }],
      typedSearchAttributes: [
        { key: searchAttributes.userId, value: call.userId },
        ...(call.assistantId === null ? [] : [{ key: searchAttributes.assistantId, value: call.assistantId }]),
      ],
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    const running = await temporal.client.workflow.getHandle(workflowId).describe().catch(() => undefined);
    logger.warn({ workflowId, runId: running?.runId }, 'call lifecycle already running: not started again');
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
