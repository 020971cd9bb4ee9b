import { Gauge, type Registry } from 'prom-client';
import type { Knex } from '../db/database.ts';
import { metricGroups, registerMetrics } from '../lib/metrics.ts';
import type { Logger } from '../logger.ts';
import { LIVE_STATUSES } from '../resources/calls/model.ts';
import type { TemporalClient } from '../temporal/client.ts';

/** The Temporal task queue types Parley's worker polls, with the enum values of Temporal's API. */
const QUEUE_TYPES = [{ type: 'workflow', value: 1 }, { type: 'activity', value: 2 }] as const;

export interface RoleMetricsDeps {
  registry: Registry;
  knex: Knex;
  temporal: TemporalClient;
  logger: Logger;
}

/** The api role's metrics: its requests. */
export function registerApiMetrics(deps: Pick<RoleMetricsDeps, 'registry'>): void {
  registerMetrics(deps.registry, metricGroups.api);
}

/** The media role's metrics: its calls, their turns and the speech and model failures they meet. */
export function registerMediaMetrics(deps: Pick<RoleMetricsDeps, 'registry'>): void {
  registerMetrics(deps.registry, metricGroups.media);
}

/**
 * The worker role's metrics: webhook deliveries, campaign dialing and carrier failures, plus two read at each
 * scrape: the campaign calls in flight (from the database, so every worker of a cluster reports the same
 * number) and the backlog of the task queue (Temporal's DescribeTaskQueue with its stats).
 */
export function registerWorkerMetrics(deps: RoleMetricsDeps): void {
  const { registry, knex, temporal, logger } = deps;
  registerMetrics(registry, metricGroups.worker);
  if (registry.getSingleMetric('parley_campaign_calls_in_flight')) return;
  registry.registerMetric(new Gauge({
    name: 'parley_campaign_calls_in_flight',
    help: 'Campaign calls placed and not yet ended: the campaign slots in use, across the deployment.',
    registers: [],
    async collect() {
      const row = await knex('calls').whereNotNull('campaignId').whereIn('status', LIVE_STATUSES).count<{ count: string | number }[]>({ count: '*' }).first();
      this.set(Number(row?.count ?? 0));
    },
  }));
  const backlog = sharedBacklogRead(temporal, logger);
  registry.registerMetric(new Gauge({
    name: 'parley_temporal_task_queue_backlog',
    help: "Tasks waiting in Parley's Temporal task queue for a worker, by type (workflow, activity); approximate, as Temporal reports it.",
    labelNames: ['type'] as const,
    registers: [],
    async collect() {
      this.reset();
      for (const { type, count } of await backlog()) this.set({ type }, count);
    },
  }));
  registry.registerMetric(new Gauge({
    name: 'parley_temporal_task_queue_backlog_age_seconds',
    help: "Age of the oldest task waiting in Parley's Temporal task queue, by type (workflow, activity).",
    labelNames: ['type'] as const,
    registers: [],
    async collect() {
      this.reset();
      for (const { type, ageSeconds } of await backlog()) this.set({ type }, ageSeconds);
    },
  }));
}

interface Backlog {
  type: string;
  count: number;
  ageSeconds: number;
}

/**
 * Reads the task queue's stats once for the two gauges of a scrape (the registry collects them together).
 * Temporal unreachable: no series this scrape, rather than stale ones.
 */
function sharedBacklogRead(temporal: TemporalClient, logger: Logger): () => Promise<Backlog[]> {
  let pending: Promise<Backlog[]> | undefined;
  const read = async (): Promise<Backlog[]> => {
    try {
      return await Promise.all(QUEUE_TYPES.map(async ({ type, value }) => {
        const { stats } = await temporal.connection.withDeadline(Date.now() + 2000, () => temporal.connection.workflowService.describeTaskQueue({
          namespace: temporal.client.options.namespace, taskQueue: { name: temporal.taskQueue }, taskQueueType: value, reportStats: true,
        }));
        const age = stats?.approximateBacklogAge;
        return { type, count: Number(stats?.approximateBacklogCount ?? 0), ageSeconds: Number(age?.seconds ?? 0) + (age?.nanos ?? 0) / 1e9 };
      }));
    } catch (error) {
      logger.warn({ err: error }, 'could not read the task queue backlog for the metrics');
      return [];
    }
  };
  return () => (pending ??= read().finally(() => {
    pending = undefined;
  }));
}
