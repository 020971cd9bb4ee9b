import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { SelfCheckResult } from '../src/temporal/shared.ts';

const { recordSelfCheck } = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '200 milliseconds', maximumAttempts: 5 },
});

/** Proves the chain API → Temporal → worker → activity → database. Ends when the row is written. */
export async function platformSelfCheckWorkflow(input: { checkId: string }): Promise<SelfCheckResult> {
  return recordSelfCheck({ checkId: input.checkId, workflowId: workflowInfo().workflowId });
}
