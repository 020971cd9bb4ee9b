import { inject } from 'vitest';
import type { Activities } from '../../activities/index.ts';
import { createLogger } from '../../src/logger.ts';
import { createTemporalClient, type TemporalClient } from '../../src/temporal/client.ts';
import { startWorker } from '../../src/temporal/worker.ts';
import { stubActivities, type ActivityCall } from './stub-activities.ts';
import { testConfig } from './platform.ts';

export { activityGate, heartbeatUntilCancelled, type ActivityCall, type ActivityGate } from './stub-activities.ts';

export interface StubWorker {
  /** A client in this file's namespace whose task queue is the worker's, as the starters take it. */
  temporal: TemporalClient;
  /** Every activity attempt, in the order they started. */
  calls: ActivityCall[];
  stop(): Promise<void>;
}

/**
 * A real worker on the run's dev server, running today's workflow code (the bundle of the global setup)
 * with `stubs` for activities, on a task queue of its own in this file's namespace. An activity without
 * a stub fails at once with "not stubbed: <name>".
 */
export async function startStubWorker(stubs: Partial<Activities>): Promise<StubWorker> {
  const config = await testConfig();
  const address = config.temporal.address ?? '';
  const calls: ActivityCall[] = [];
  const worker = await startWorker({
    config,
    address,
    activities: stubActivities(stubs, calls),
    logger: createLogger(config),
    workflowBundlePath: inject('workflowBundlePath'),
  });
  const temporal = createTemporalClient(config, address);
  return {
    temporal,
    calls,
    async stop() {
      await worker.stop();
      await temporal.close();
    },
  };
}
