import path from 'node:path';
import type { Config } from './config.ts';
import { acquireDataDirLock } from './db/data-dir-lock.ts';
import { connectPostgres, migrateLatest, openEmbedded, type Database } from './db/database.ts';
import type { Logger } from './logger.ts';
import { createProviders, type Providers } from './providers/index.ts';
import { ensureSpeechInstalled } from './providers/speech-install.ts';
import * as api from './roles/api.ts';
import * as media from './roles/media.ts';
import * as sip from './roles/sip.ts';
import type { RoleContext, RoleModule, RunningRole } from './roles/role.ts';
import * as worker from './roles/worker.ts';
import { startMetricsServer } from './roles/metrics-server.ts';
import { createMetricsRegistry } from './lib/metrics.ts';
import { SipGatewayMissingError } from './sip/gateway-process.ts';
import { createTemporalClient, type TemporalClient } from './temporal/client.ts';
import { ensureTemporalCli, startTemporalDevServer } from './temporal/dev-server.ts';

export type Role = 'all' | 'api' | 'worker' | 'media' | 'sip';
type SingleRole = Exclude<Role, 'all'>;

/** The modules of the single roles. */
const roleModules: Record<SingleRole, RoleModule> = { worker, sip, api, media };

/**
 * The roles a process runs, in the order they start: the worker before anything sends it work, the SIP gateway
 * (unless SIP_ENABLED=false) before the api, so that carriers' OPTIONS are answered once /api/ready is.
 */
function rolesOf(role: Role, config: Config): SingleRole[] {
  if (role !== 'all') return [role];
  return config.sip.enabled ? ['worker', 'sip', 'api', 'media'] : ['worker', 'api', 'media'];
}

export class RoleSetupError extends Error {
  override name = 'RoleSetupError';
}

/** Closes what was opened, last opened first; each step runs even when an earlier one fails. */
class Closers {
  private readonly steps: { name: string; close: (deadline: number) => Promise<void> | void }[] = [];

  /** `close` gets the deadline of the whole stop: what drains may take until then. */
  add(name: string, close: (deadline: number) => Promise<void> | void): void {
    this.steps.push({ name, close });
  }

  async closeAll(logger: Logger, deadline: number): Promise<void> {
    for (const step of this.steps.splice(0).reverse()) {
      try {
        await step.close(deadline);
      } catch (error) {
        logger.error({ err: error }, `failed to stop ${step.name}`);
      }
    }
  }
}

export interface RunningPlatform {
  role: Role;
  database: Database;
  temporal: TemporalClient;
  temporalAddress: string;
  temporalUiUrl: string | undefined;
  apiUrl: string | undefined;
  /** The WebSocket base URL of the media gateway, when this process runs it. */
  mediaUrl: string | undefined;
  /** Where GET /metrics is served (METRICS_PORT), when it is. */
  metricsUrl: string | undefined;
  /** Where the SIP gateway hears SIP (`host:port`, UDP and TCP), when this process runs it. */
  sipAddress: string | undefined;
  /**
   * Stops accepting work in every role at once, lets what is in flight finish (until DRAIN_TIMEOUT has
   * passed), then closes every connection and child process.
   */
  stop(): Promise<void>;
}

/**
 * Opens the database of the configuration: the PostgreSQL server of DATABASE_URL, or the embedded PGlite
 * under DATA_DIR, locked against a second process.
 */
export async function openConfiguredDatabase(config: Config, closers?: Closers): Promise<Database> {
  if (config.database.url) return connectPostgres(config.database.url, config.database.poolMax);
  const release = acquireDataDirLock(config.dataDir);
  try {
    const database = await openEmbedded({ dataDir: path.join(config.dataDir, 'pg') });
    closers?.add('the data directory lock', release);
    return database;
  } catch (error) {
    release();
    throw error;
  }
}

/** Stops the roles together, so all stop taking work at once and share the drain time. */
async function stopRoles(running: { name: SingleRole; role: RunningRole }[], deadline: number, logger: Logger): Promise<void> {
  await Promise.all(running.map(async ({ name, role }) => {
    try {
      await role.stop(deadline);
    } catch (error) {
      logger.error({ err: error }, `failed to stop the ${name} role`);
    }
  }));
}

export async function startPlatform(options: { config: Config; logger: Logger; role: Role }): Promise<RunningPlatform> {
  const { config, logger, role } = options;
  if (role !== 'all' && (!config.database.url || !config.temporal.address)) {
    throw new RoleSetupError(
      `Starting the ${role} role alone is for a cluster: set DATABASE_URL and TEMPORAL_ADDRESS so every role ` +
      'shares them. On one machine, use npm start, which runs every role with the embedded defaults.',
    );
  }
  const roles = rolesOf(role, config);
  // Before the speech adapters look for their models.
  if (roles.includes('media')) ensureSpeechInstalled(config, logger);
  // Before anything starts: a cluster without APP_KEY is refused here, with the reason.
  let openedDatabase: Database | undefined;
  const providers: Providers = createProviders(config, logger, {}, () => {
    if (!openedDatabase) throw new Error('the database is not open yet');
    return openedDatabase.knex;
  });
  const closers = new Closers();
  // Added first, so closed last: after the roles have stopped using speech.
  closers.add('the speech providers', () => providers.close());
  const stopNow = () => closers.closeAll(logger, Date.now() + config.drainTimeoutMs);
  try {
    const database = await openConfiguredDatabase(config, closers);
    openedDatabase = database;
    closers.add('the database', () => database.close());
    // The api migrates; workers and media gateways of a cluster start after it (compose waits for its health).
    if (roles.includes('api')) {
      const applied = await migrateLatest(database.knex);
      if (applied.length > 0) logger.info({ migrations: applied }, 'applied migrations');
    }

    let temporalAddress = config.temporal.address;
    let temporalUiUrl: string | undefined;
    if (!temporalAddress) {
      const cliPath = ensureTemporalCli(config.temporal.cliPath, logger);
      logger.info('starting the Temporal dev server');
      const devServer = await startTemporalDevServer({
        cliPath,
        port: config.temporal.devServerPort,
        uiPort: config.temporal.devServerUiPort,
        dbFile: path.join(config.dataDir, 'temporal.db'),
        pidFile: path.join(config.dataDir, 'temporal.pid'),
        logger,
      });
      closers.add('the Temporal dev server', () => devServer.stop());
      temporalAddress = devServer.address;
      temporalUiUrl = devServer.uiUrl;
    }

    const temporal = createTemporalClient(config, temporalAddress);
    closers.add('the Temporal client', () => temporal.close());

    // One registry for the process: in `all` mode it serves the metrics of every role.
    const metrics = createMetricsRegistry();
    const context: RoleContext = { config, logger, database, temporal, temporalAddress, providers, metrics };
    const running: { name: SingleRole; role: RunningRole }[] = [];
    closers.add('the roles', (deadline) => stopRoles(running, deadline, logger));
    let sipAddress: string | undefined;
    for (const name of roles) {
      try {
        const started = await roleModules[name].start(context);
        running.push({ name, role: started });
        if (name === 'sip') {
          const listening = (started as sip.SipRole).listening();
          sipAddress = listening ? `${listening.publicHost}:${listening.udp.split(':').pop() ?? ''}` : undefined;
        }
      } catch (error) {
        // The embedded default runs without SIP trunks where Go cannot build the gateway; `start:sip` fails.
        if (!(error instanceof SipGatewayMissingError && role === 'all')) throw error;
        logger.warn({ err: error }, 'SIP trunks are off: the SIP gateway is not installed (set SIP_ENABLED=false to silence this)');
      }
    }
    const metricsServer = await startMetricsServer(config, metrics, logger);
    if (metricsServer) closers.add('the metrics server', (deadline) => metricsServer.stop(deadline));

    return {
      role,
      database,
      temporal,
      temporalAddress,
      temporalUiUrl,
      apiUrl: roles.includes('api') ? `${config.publicUrl}/api` : undefined,
      mediaUrl: roles.includes('media') ? `${config.media.publicUrl}/media` : undefined,
      metricsUrl: metricsServer ? `http://${metricsServer.address}/metrics` : undefined,
      sipAddress,
      stop: stopNow,
    };
  } catch (error) {
    await stopNow();
    throw error;
  }
}
