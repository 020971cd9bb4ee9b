/**
 * The platform as `npm start` runs it, for bench/conversation.ts: the api and worker roles in this process on
 * its main thread, over the embedded PGlite (or a database of the bench's own on DATABASE_URL's server), with the
 * Temporal dev server as a child process (or TEMPORAL_ADDRESS). The media role is left out: a chat never reaches
 * it. Besides the API's URL it counts the API's calls to Temporal, by method, and its statements to the database, and reads the CPU time of this
 * process, of the Temporal server and of the PostgreSQL backends serving the bench.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { loadConfig, type Config } from '../../src/config.ts';
import { connectPostgres, migrateLatest, openEmbedded, type Database } from '../../src/db/database.ts';
import { createMetricsRegistry, earlyModelRequests } from '../../src/lib/metrics.ts';
import { createLogger } from '../../src/logger.ts';
import { createProviders } from '../../src/providers/index.ts';
import * as apiRole from '../../src/roles/api.ts';
import type { RoleContext, RunningRole } from '../../src/roles/role.ts';
import * as workerRole from '../../src/roles/worker.ts';
import { createTemporalClient, type TemporalClient } from '../../src/temporal/client.ts';
import { ensureTemporalCli, startTemporalDevServer } from '../../src/temporal/dev-server.ts';
import { createScratchDatabase } from '../../test/support/scratch-database.ts';
import { benchEnv } from '../platform-env.ts';
import { processUsage } from '../webhooks/usage.ts';

export interface CpuReading {
  /** This process's main thread: the API, the worker's activities, the database driver, PGlite. */
  mainMs: number;
  /** Every thread of this process (the workflow threads and Temporal's core too), the bench's own thread included. */
  processMs: number;
  temporalServerMs: number | undefined;
  /** The CPU time of each PostgreSQL backend connected to the bench's database, by process id (none with PGlite). */
  postgres: Map<number, number> | undefined;
  /** The API's calls to Temporal so far, by method. */
  temporalCalls: Record<string, number>;
  /** The statements the platform's knex has sent to the database so far (a transaction's begin and commit count too). */
  statements: number;
  /** The milliseconds they took, from sending each to its answer (the database's work, the round trip and any wait). */
  statementMs: number;
  /** The chat turns so far whose model request went out early (resources/conversations/early-reply.ts), by outcome. */
  earlyRequests: Record<string, number>;
}

/** The PostgreSQL backends' CPU time between two readings: a backend that started in between counts whole. */
export function postgresCpuMs(before: CpuReading, after: CpuReading): number | undefined {
  if (!before.postgres || !after.postgres) return undefined;
  let total = 0;
  for (const [pid, ms] of after.postgres) total += ms - (before.postgres.get(pid) ?? 0);
  return total;
}

export interface BenchPlatform {
  apiUrl: string;
  knex: Knex;
  config: Config;
  databaseName: string;
  cpu(): Promise<CpuReading>;
  stop(): Promise<void>;
}

/** Counts each call the API's Temporal client makes, by the method of the frontend's service. */
function countCalls(temporal: TemporalClient): Record<string, number> {
  const calls: Record<string, number> = {};
  // The connection's service is a plain object of one function per method (the SDK's namespace header wrapper).
  const service = temporal.connection.workflowService as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const [name, method] of Object.entries(service)) {
    if (typeof method !== 'function') continue;
    service[name] = (...args: unknown[]) => {
      calls[name] = (calls[name] ?? 0) + 1;
      return method.apply(service, args);
    };
  }
  return calls;
}

/** CPU milliseconds of the PostgreSQL backends serving `knex`'s database, by process id. */
async function postgresBackends(knex: Knex): Promise<Map<number, number>> {
  const { rows } = await knex.raw<{ rows: { pid: number }[] }>('select pid from pg_stat_activity where datname = current_database()');
  return new Map(rows.map(({ pid }) => [pid, processUsage(pid).cpuMs]));
}

export async function startBenchPlatform(llmUrl: string): Promise<BenchPlatform> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-conversation-bench-'));
  const scratch = process.env.DATABASE_URL ? await createScratchDatabase(process.env.DATABASE_URL, 'parley_bench') : undefined;
  if (process.env.DATABASE_URL && !scratch) throw new Error("The bench creates a database of its own on DATABASE_URL's server, and may not.");
  const { env, baseUrl } = await benchEnv({
    dataDir, llmUrl, extra: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent', ...(scratch ? { DATABASE_URL: scratch.url } : {}) },
  });
  const config = loadConfig(env);
  const logger = createLogger(config);
  const database: Database = config.database.url
    ? await connectPostgres(config.database.url, config.database.poolMax)
    : await openEmbedded({ dataDir: path.join(dataDir, 'pg') });
  await migrateLatest(database.knex);

  const pidFile = path.join(dataDir, 'temporal.pid');
  const devServer = config.temporal.address ? undefined : await startTemporalDevServer({
    cliPath: ensureTemporalCli(config.temporal.cliPath, logger), port: config.temporal.devServerPort, uiPort: config.temporal.devServerUiPort, pidFile, logger,
  });
  const temporalAddress = config.temporal.address ?? devServer!.address;
  const temporalPid = devServer ? Number(fs.readFileSync(pidFile, 'utf8')) : undefined;
  const temporal = createTemporalClient(config, temporalAddress);
  const temporalCalls = countCalls(temporal);
  let statements = 0;
  let statementMs = 0;
  const sentAt = new Map<string, number>();
  database.knex.on('query', ({ __knexQueryUid: uid }: { __knexQueryUid: string }) => {
    statements += 1;
    sentAt.set(uid, performance.now());
  });
  const answered = (_: unknown, { __knexQueryUid: uid }: { __knexQueryUid: string }) => {
    statementMs += performance.now() - (sentAt.get(uid) ?? performance.now());
    sentAt.delete(uid);
  };
  database.knex.on('query-response', answered).on('query-error', answered);
  const providers = createProviders(config, logger, {}, () => database.knex);
  const context: RoleContext = { config, logger, database, temporal, temporalAddress, providers, metrics: createMetricsRegistry() };
  const roles: RunningRole[] = [];
  roles.push(await workerRole.start(context));
  roles.push(await apiRole.start(context));

  return {
    apiUrl: baseUrl,
    knex: database.knex,
    config,
    databaseName: config.database.url ? 'PostgreSQL' : 'embedded PGlite',
    async cpu() {
      const main = process.threadCpuUsage();
      const all = process.cpuUsage();
      return {
        mainMs: (main.user + main.system) / 1000,
        processMs: (all.user + all.system) / 1000,
        temporalServerMs: temporalPid === undefined ? undefined : processUsage(temporalPid).cpuMs,
        postgres: database.kind === 'postgres' ? await postgresBackends(database.knex) : undefined,
        temporalCalls: { ...temporalCalls },
        statements,
        statementMs,
        earlyRequests: Object.fromEntries((await earlyModelRequests.get()).values.map(({ labels, value }) => [String(labels.outcome), value])),
      };
    },
    async stop() {
      const deadline = Date.now() + 10_000;
      // The api first (its requests and what they started finish), then the worker, as platform.ts stops them.
      for (const role of roles.reverse()) await role.stop(deadline);
      await temporal.close();
      await devServer?.stop();
      await providers.close();
      await database.close();
      await scratch?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
