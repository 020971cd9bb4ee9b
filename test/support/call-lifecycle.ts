import { onTestFinished } from 'vitest';
import type { Activities } from '../../activities/index.ts';
import { createLogger } from '../../src/logger.ts';
import { workflowIds } from '../../src/temporal/names.ts';
import { workflowTypes, type CallLifecycleTiming } from '../../src/temporal/shared.ts';
import { startCallLifecycle } from '../../src/temporal/starters.ts';
import type { callLifecycleWorkflow } from '../../workflows/call-lifecycle.ts';
import { startStubWorker, type StubWorker } from './workflows.ts';

/** Running a call's lifecycle on stub activities, for the workflow's tests. */

const logger = createLogger({ log: { level: 'silent', pretty: false } });
export let lastCallId = 0;

export const steps = {
  prepareCall: () => Promise.resolve({ outcome: 'ready' as const, maxSeconds: 600, phone: false, dial: false, endCallOnVoicemail: true }),
  markAnswered: () => Promise.resolve(),
  requestHangup: () => Promise.resolve('requested' as const),
  finalizeCall: ({ reason }: { reason: string }) => Promise.resolve({ status: reason === 'customer_hangup' ? 'ended_by_customer' as const : 'ended' as const, evaluate: true }),
  evaluateCall: () => Promise.resolve({ evaluated: true }),
} satisfies Partial<Activities>;

// Seconds instead of the production minute: every wait of these tests ends within a few seconds.
export const shortTiming: CallLifecycleTiming = { connectTimeoutSeconds: 1, ringTimeoutSeconds: 1, graceSeconds: 1, hangupWaitSeconds: 1 };

/** Each test runs a call of its own on a worker with its stubs; `timing` unset means the production waits. */
export async function call(stubs: Partial<Activities>, timing?: CallLifecycleTiming) {
  const worker = await startStubWorker(stubs);
  onTestFinished(() => worker.stop());
  const callId = ++lastCallId;
  if (timing) {
    await worker.temporal.client.workflow.start<typeof callLifecycleWorkflow>(workflowTypes.callLifecycle, {
      taskQueue: worker.temporal.taskQueue,
      workflowId: workflowIds.call(callId),
      args: [{ callId, timing }],
    });
  } else {
    await startCallLifecycle(worker.temporal, { id: callId, userId: 41, assistantId: 7 }, logger);
  }
  const handle = worker.temporal.client.workflow.getHandle<typeof callLifecycleWorkflow>(workflowIds.call(callId));
  return { worker, callId, handle };
}

export const names = (worker: StubWorker) => worker.calls.map((entry) => entry.name);
export const inputOf = (worker: StubWorker, name: keyof Activities) => worker.calls.find((entry) => entry.name === name)?.input;

