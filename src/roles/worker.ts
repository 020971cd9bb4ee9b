import { startWorker } from '../temporal/worker.ts';
import { createActivities } from '../../activities/index.ts';
import { sweepLostCalls } from './lost-calls.ts';
import { registerWorkerMetrics } from './metrics.ts';
import type { RoleContext, RunningRole } from './role.ts';

/**
 * The worker role: the Temporal worker with the activities built over this process's providers. Stopping
 * is Temporal's own shutdown, whatever the deadline: polling stops, activities still running are asked to
 * cancel at once, and an attempt cancelled this way is retried by another worker (activities are idempotent).
 * Beside it, each worker ends the calls whose media session stopped reporting (lost-calls.ts).
 */
export async function start(ctx: RoleContext): Promise<RunningRole> {
  const { config, logger, providers } = ctx;
  registerWorkerMetrics({ registry: ctx.metrics, knex: ctx.database.knex, temporal: ctx.temporal, logger });
  const activities = createActivities({ knex: ctx.database.knex, logger, config, providers, temporal: ctx.temporal });
  const worker = await startWorker({ config, address: ctx.temporalAddress, activities, logger });
  const sweeper = sweepLostCalls({ knex: ctx.database.knex, temporal: ctx.temporal, logger });
  return {
    async stop() {
      await sweeper.stop();
      await worker.stop();
    },
  };
}
