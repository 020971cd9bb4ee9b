import http from 'node:http';
import path from 'node:path';
import { createApp } from './api/app.ts';
import type { Config } from './config.ts';
import { acquireDataDirLock } from './db/data-dir-lock.ts';
import { connectPostgres, migrateLatest, openEmbedded, type Database } from './db/database.ts';
import type { Logger } from './logger.ts';
import { createProviders, type Providers } from './providers/index.ts';
import { createTemporalClient, type TemporalClient } from './temporal/client.ts';
import { ensureTemporalCli, startTemporalDevServer } from './temporal/dev-server.ts';
import { startWorker } from './temporal/worker.ts';
import { createActivities } from '../activities/index.ts';

export type Role = 'all' | 'api' | 'worker';

export class RoleSetupError extends Error {
  override name = 'RoleSetupError';
}

/** Closes what was opened, last opened first; each step runs even when an earlier one fails. */
class Closers {
  private readonly steps: { name: string; close: () => Promise<void> | void }[] = [];

  add(name: string, close: () => Promise<void> | void): void {
    this.steps.push({ name, close });
  }

  async closeAll(logger: Logger): Promise<void> {
    for (const step of this.steps.splice(0).reverse()) {
      try {
        await step.close();
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
  /** Stops accepting work, drains what is in flight, then closes every connection and child process. */
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

function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

export async function startPlatform(options: { config: Config; logger: Logger; role: Role }): Promise<RunningPlatform> {
  const { config, logger, role } = options;
  if (role !== 'all' && (!config.database.url || !config.temporal.address)) {
    throw new RoleSetupError(
      `Starting the ${role} role alone is for a cluster: set DATABASE_URL and TEMPORAL_ADDRESS so every role ` +
      'shares them. On one machine, use npm start, which runs every role with the embedded defaults.',
    );
  }
  // Before anything starts: a cluster without APP_KEY is refused here, with the reason.
  const providers: Providers = createProviders(config, logger);
  const closers = new Closers();
  try {
    const database = await openConfiguredDatabase(config, closers);
    closers.add('the database', () => database.close());
    if (role !== 'worker') {
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

    if (role !== 'api') {
      const activities = createActivities({ knex: database.knex, logger, config, providers });
      const worker = await startWorker({ config, address: temporalAddress, activities, logger });
      closers.add('the Temporal worker', () => worker.stop());
    }

    let apiUrl: string | undefined;
    if (role !== 'worker') {
      const { app } = createApp({ config, logger, knex: database.knex, temporal, providers });
      const server = http.createServer(app.callback());
      await listen(server, config.port, config.host);
      closers.add('the HTTP server', () => new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }));
      apiUrl = `${config.publicUrl}/api`;
    }

    return {
      role,
      database,
      temporal,
      temporalAddress,
      temporalUiUrl,
      apiUrl,
      stop: () => closers.closeAll(logger),
    };
  } catch (error) {
    await closers.closeAll(logger);
    throw error;
  }
}
