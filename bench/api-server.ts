/**
 * The API alone on a loopback port, over PostgreSQL (DATABASE_URL; with `scratch`, in a database of its own on
 * that server, dropped at the end) or an embedded PGlite in a temporary directory, migrated; the Temporal client is
 * made but never needed by the routes the benches call.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { createApp } from '../src/api/app.ts';
import { createRequestGuards } from '../src/api/guards.ts';
import { loadConfig, type Config } from '../src/config.ts';
import { connectPostgres, migrateLatest, openEmbedded, type Database } from '../src/db/database.ts';
import { createSecretBox } from '../src/lib/secrets.ts';
import { createLogger } from '../src/logger.ts';
import { createProviders } from '../src/providers/index.ts';
import { tokenResolver } from '../src/resources/auth/tokens.ts';
import { apiRoutes } from '../src/roles/api.ts';
import { createTemporalClient } from '../src/temporal/client.ts';
import { listenOnLoopback } from '../test/support/ports.ts';
import { createScratchDatabase } from '../test/support/scratch-database.ts';

export interface BenchApi {
  config: Config;
  knex: Knex;
  /** `http://127.0.0.1:<port>`, also the app's public URL. */
  url: string;
  close(): Promise<void>;
}

export async function startBenchApi(options: { scratch?: boolean } = {}): Promise<BenchApi> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-'));
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '1000000' });
  const scratch = options.scratch && config.database.url ? await createScratchDatabase(config.database.url, 'parley_bench') : undefined;
  const url = scratch?.url ?? config.database.url;
  const database: Database = url ? await connectPostgres(url, config.database.poolMax) : await openEmbedded({ dataDir });
  const { knex } = database;
  await migrateLatest(knex);
  const temporal = createTemporalClient(config, config.temporal.address ?? '127.0.0.1:7233');
  const logger = createLogger(config);
  const providers = createProviders(config, logger, { secrets: createSecretBox(randomBytes(32)) });
  const guards = createRequestGuards({ knex, config, resolveToken: (clock) => tokenResolver(knex, clock) });
  const server = http.createServer();
  const listening = await listenOnLoopback(server);
  // Before the routes are built: links in answers (pages, recordings) point at this server.
  config.publicUrl = listening.url;
  const { app } = createApp({ config, logger, routes: apiRoutes({ config, logger, knex, temporal, providers, guards }), guards });
  server.on('request', app.callback());
  return {
    config,
    knex,
    url: listening.url,
    async close() {
      await listening.close();
      await temporal.close();
      await providers.close();
      await database.close();
      await scratch?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
