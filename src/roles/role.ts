import type { Registry } from 'prom-client';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import type { Providers } from '../providers/index.ts';
import type { TemporalClient } from '../temporal/client.ts';

/** What every role of a process shares, opened once by platform.ts before the first role starts. */
export interface RoleContext {
  config: Config;
  logger: Logger;
  database: Database;
  temporal: TemporalClient;
  /** The Temporal frontend of this process: TEMPORAL_ADDRESS, or the dev server `npm start` runs. */
  temporalAddress: string;
  /** The adapters of this process, from createProviders. */
  providers: Providers;
  /** The process's metrics registry (served on METRICS_PORT): each role adds the metrics it feeds. */
  metrics: Registry;
}

export interface RunningRole {
  /**
   * Stops taking new work and lets the work in flight finish until `deadline` (epoch milliseconds), then
   * cuts what is left; resolves once the role holds nothing open.
   */
  stop(deadline: number): Promise<void>;
}

/** One process role (roles/api.ts, roles/worker.ts, roles/media.ts): the shape platform.ts starts. */
export interface RoleModule {
  start(ctx: RoleContext): Promise<RunningRole>;
}
