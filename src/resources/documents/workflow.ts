import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { documentIngestionWorkflow } from '../../../workflows/index.ts';
import type { TemporalClient } from '../../temporal/client.ts';
import { searchAttributes, workflowIds } from '../../temporal/names.ts';

/** Starts the ingestion of a document; a second start of the same document finds the first one running. */
export async function startDocumentIngestion(temporal: TemporalClient, document: { id: number; userId: number }): Promise<void> {
  try {
    await temporal.client.workflow.start(documentIngestionWorkflow, {
      taskQueue: temporal.taskQueue,
      workflowId: workflowIds.document(document.id),
      args: [{ documentId: document.id }],
      typedSearchAttributes: [{ key: searchAttributes.userId, value: document.userId }],
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return;
    throw error;
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
