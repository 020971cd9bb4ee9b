import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Registry } from 'prom-client';
import { inject } from 'vitest';
import { createApp, type Api } from '../../src/api/app.ts';
import { createRequestGuards } from '../../src/api/guards.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { connectPostgres, openEmbedded, type Database } from '../../src/db/database.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { mediaControlToken } from '../../src/lib/media-control.ts';
import { createSecretBox, decodeAppKey } from '../../src/lib/secrets.ts';
import { InFlight } from '../../src/lib/in-flight.ts';
import { createLogger, type Logger } from '../../src/logger.ts';
import { createProviders, type Providers } from '../../src/providers/index.ts';
import { createMediaControl } from '../../src/providers/media-control/index.ts';
import { tokenResolver } from '../../src/resources/auth/tokens.ts';
import { apiRoutes, createSandboxCarrier } from '../../src/roles/api.ts';
import { sandboxPages } from '../../src/simulators/sandbox-carrier/http/pages.ts';
import { softphoneUpgrades } from '../../src/simulators/sandbox-carrier/http/softphone.ts';
import type { SandboxCarrier } from '../../src/simulators/sandbox-carrier/carrier.ts';
import { sweepLostCalls } from '../../src/roles/lost-calls.ts';
import { start as startMedia } from '../../src/roles/media.ts';
import { start as startSip, type SipRole } from '../../src/roles/sip.ts';
import { registerApiMetrics, registerWorkerMetrics } from '../../src/roles/metrics.ts';
import { createMetricsRegistry } from '../../src/lib/metrics.ts';
import { createActivities } from '../../activities/index.ts';
import { createTemporalClient, type TemporalClient } from '../../src/temporal/client.ts';
import { startWorker, type StartedWorker } from '../../src/temporal/worker.ts';
import { apiRequest, type ApiRequest } from './http.ts';
import { listenOnLoopback } from './ports.ts';
import { testNamespace } from './temporal.ts';

export type { RequestOptions, TestResponse } from './http.ts';

export interface TestPlatform {
  config: Config;
  database: Database;
  temporal: TemporalClient;
  worker: StartedWorker | undefined;
  baseUrl: string;
  /** The media gateway's `ws:` base URL, when the platform was started with `media`. */
  mediaUrl: string | undefined;
  /** The SIP gateway, when the platform was started with `sip`. */
  sip: SipRole | undefined;
  api: Api;
  providers: Providers;
  /** The platform's metrics registry, with the metrics of the roles it runs (api, and worker and media when asked). */
  metrics: Registry;
  /** The sandbox carrier's simulator, when the platform's carrier is the sandbox. */
  sandboxCarrier: SandboxCarrier | undefined;
  request: ApiRequest;
  close(): Promise<void>;
}

/** The database of this test file: a fresh clone of the migrated PGlite template, or the shared server. */
export async function openTestDatabase(): Promise<Database> {
  const url = inject('databaseUrl');
  if (url) return connectPostgres(url, 5);
  const template = inject('pgliteTemplate');
  if (!template) throw new Error('the global setup provided no database');
  return openEmbedded({ loadDataDir: new Blob([fs.readFileSync(template)]) });
}

/**
 * The configuration of a test: quiet logs, the run's dev server, this file's namespace and a task queue of
 * its own (so workers of other platforms never take its tasks), then the test's own variables.
 */
export async function testConfig(env: Record<string, string> = {}): Promise<Config> {
  return loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    LOG_FORMAT: 'json',
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_NAMESPACE: await testNamespace(),
    TEMPORAL_TASK_QUEUE: `test-${randomUUID()}`,
    ...env,
  });
}

/**
 * The SIP gateway of a test, unless the test's own variables say otherwise: loopback, a free SIP and control port,
 * and RTP ports of a range no other test file of the run is likely to take.
 */
function testSipSettings(settings: Config['sip']): Partial<Config['sip']> {
  const rtpBase = 20000 + 2 * Math.floor(Math.random() * 9000);
  return {
    host: settings.host === '0.0.0.0' ? '127.0.0.1' : settings.host,
    port: settings.port === 5060 ? 0 : settings.port,
    controlPort: 0,
    ...(settings.rtpPortMin === 10000 && settings.rtpPortMax === 20000 ? { rtpPortMin: rtpBase, rtpPortMax: rtpBase + 400 } : {}),
  };
}

/**
 * The real app on a real port, over this file's database and the run's Temporal dev server, in this file's
 * namespace and with a task queue of its own so workers of other platforms never take its tasks.
 */
export async function startTestPlatform(options: {
  worker?: boolean;
  /** Runs the media role too, on a port of its own; web calls' `websocket_url` points at it. */
  media?: boolean;
  /**
   * Runs the sip role too: the SIP gateway on a free port of 127.0.0.1 (UDP and TCP, its address in
   * `sip.listening()`), RTP on a range of its own, and the control API the trunk carrier adapter reaches.
   */
  sip?: boolean;
  env?: Record<string, string>;
  logger?: Logger;
  /** Fakes in place of the configured adapters; the rest are built as production builds them. */
  providers?: Partial<Omit<Providers, 'close'>>;
  /** The app's time (session expiry, login lockout), the system clock unless given. */
  clock?: Clock;
  /**
   * The worker looks for calls whose media session stopped reporting, as the worker role does. Only when asked:
   * on PostgreSQL every test file shares one database, and a sweeper would claim other files' calls, whose
   * workflows it cannot reach in their namespaces, so they would never end.
   */
  sweepLostCalls?: boolean;
} = {}): Promise<TestPlatform> {
  // Uploads and ingestion work files go to a directory of this platform's, removed with it, unless the test
  // names one with STORAGE_DIR; `config.storage.dir` says where.
  const scratchStorage = options.env?.STORAGE_DIR ? undefined : fs.mkdtempSync(path.join(os.tmpdir(), 'parley-storage-'));
  const config = await testConfig({ ...(scratchStorage ? { STORAGE_DIR: scratchStorage } : {}), ...options.env });
  const logger = options.logger ?? createLogger(config);
  const database = await openTestDatabase();
  const temporal = createTemporalClient(config, config.temporal.address ?? '');
  // A fresh app key per platform unless a test names one with APP_KEY.
  const appKey = (config.appKey ? decodeAppKey(config.appKey) : undefined) ?? randomBytes(32);
  const providers = createProviders(config, logger, {
    secrets: createSecretBox(appKey),
    mediaControl: createMediaControl(() => mediaControlToken(appKey)),
    ...options.providers,
  }, () => database.knex);
  // Listening first, so that a platform without a PUBLIC_URL of its test's is reachable at the one it gives
  // the carrier (status callbacks, transfer outcomes, the sandbox carrier's API): the port it was given. Before
  // the roles start, as the media role takes a copy of the configuration.
  let handle: http.RequestListener = (_request, response) => response.writeHead(503).end();
  const server = http.createServer((request, response) => handle(request, response));
  const { url: baseUrl, close: stopServer } = await listenOnLoopback(server);
  if (!options.env?.PUBLIC_URL) config.publicUrl = baseUrl;
  const metrics = createMetricsRegistry();
  registerApiMetrics({ registry: metrics });
  if (options.worker) registerWorkerMetrics({ registry: metrics, knex: database.knex, temporal, logger });
  const worker = options.worker
    ? await startWorker({
      config,
      address: config.temporal.address ?? '',
      activities: createActivities({ knex: database.knex, logger, config, providers, temporal }),
      logger,
      workflowBundlePath: inject('workflowBundlePath'),
    })
    : undefined;
  const sweeper = options.worker && options.sweepLostCalls ? sweepLostCalls({ knex: database.knex, temporal, logger }) : undefined;
  const media = options.media
    ? await startMedia({ config: { ...config, media: { ...config.media, port: 0 } }, logger, database, temporal, temporalAddress: config.temporal.address ?? '', providers, metrics })
    : undefined;
  // Web calls hand out the gateway's address: here, the port it was given.
  if (media) config.media.publicUrl = media.url.replace(/^http/, 'ws');
  const sip = options.sip ? await startSip({
    config: { ...config, sip: { ...config.sip, ...testSipSettings(config.sip) } }, logger, database, temporal, temporalAddress: config.temporal.address ?? '', providers, metrics,
  }) : undefined;
  if (sip) config.sip.controlUrl = sip.url;
  const guards = createRequestGuards({ knex: database.knex, config, clock: options.clock, resolveToken: (clock) => tokenResolver(database.knex, clock) });
  const sandboxCarrier = options.providers?.telephony ? undefined : createSandboxCarrier(config, providers, logger, database.knex);
  // Temporal calls the routes make without waiting (a conversation's timer start) finish before the client closes.
  const inFlight = new InFlight();
  const routes = apiRoutes({ config, logger, knex: database.knex, temporal, providers, guards, sandboxCarrier, inFlight });
  const api = createApp({ config, logger, routes, guards, pages: sandboxCarrier ? sandboxPages() : undefined });
  if (sandboxCarrier) server.on('upgrade', softphoneUpgrades(sandboxCarrier, logger));
  const callback = api.app.callback();
  handle = (request, response) => void callback(request, response);

  return {
    config,
    database,
    temporal,
    worker,
    baseUrl,
    mediaUrl: media ? config.media.publicUrl : undefined,
    sip,
    api,
    providers,
    metrics,
    request: apiRequest(baseUrl),
    sandboxCarrier,
    async close() {
      await sandboxCarrier?.close();
      await stopServer();
      await sip?.stop(Date.now());
      await media?.stop(Date.now());
      await sweeper?.stop();
      await worker?.stop();
      await inFlight.settled(Date.now() + 10_000);
      await temporal.close();
      await database.close();
      await providers.close();
      if (scratchStorage) fs.rmSync(scratchStorage, { recursive: true, force: true });
    },
  };
}
