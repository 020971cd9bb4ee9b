/**
 * The platform's roles as processes of their own, for the crash drills: a database of the drill's own on the
 * PostgreSQL server of DATABASE_URL (the processes share it; it is dropped at the end), the Temporal dev server,
 * and `src/main.ts <role>` per role on free ports, any of which can be SIGKILLed and started again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createLogger } from '../src/logger.ts';
import { ensureTemporalCli, startTemporalDevServer } from '../src/temporal/dev-server.ts';
import { freePort } from '../test/support/ports.ts';
import { createScratchDatabase } from '../test/support/scratch-database.ts';

export type ClusterRole = 'api' | 'worker' | 'media';

export interface Cluster {
  /** `http://127.0.0.1:<port>`: the api role (its routes under `/api`). */
  baseUrl: string;
  /** The drill's own database. */
  databaseUrl: string;
  /** What every role runs with (APP_KEY included, for deriving the deployment's keys). */
  env: Record<string, string>;
  /** SIGKILLs the role's process, as a crash (no drain), waits `downMs`, then starts a new one and waits until it serves. */
  crash(role: ClusterRole, downMs?: number): Promise<void>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `url` until it answers 200, for at most `ms`. */
async function servesAt(url: string, what: string, ms = 120_000): Promise<void> {
  for (const started = Date.now(); (await fetch(url).then((answer) => answer.status, () => 0)) !== 200; await sleep(250)) {
    if (Date.now() - started > ms) throw new Error(`${what} did not start within ${ms / 1000} s`);
  }
}

/**
 * Starts the cluster: the api first (it migrates the new database), then the other roles. `env` adds to the
 * roles' environment (subscription periods, speech providers, the language model's URL).
 */
export async function startCluster(options: { name: string; roles: ClusterRole[]; env?: Record<string, string> }): Promise<Cluster> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) throw new Error(`The ${options.name} needs a PostgreSQL server that its processes share: DATABASE_URL=$(bash scripts/setup-postgres.sh)`);
  const scratch = await createScratchDatabase(serverUrl, `parley_${options.name.replace(/\W/g, '_')}`);
  if (!scratch) throw new Error(`The ${options.name} creates a database of its own on ${new URL(serverUrl).host}, and may not.`);

  const logger = createLogger({ log: { level: 'warn', pretty: false } });
  const temporalPort = await freePort();
  const temporal = await startTemporalDevServer({ cliPath: ensureTemporalCli(process.env.TEMPORAL_CLI, logger), port: temporalPort, uiPort: await freePort(), logger });
  const [port, mediaPort] = [await freePort(), await freePort()];
  const baseUrl = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    NODE_ENV: 'development',
    PARLEY_ENV_FILE: '/nonexistent/parley-drill.env',
    DATABASE_URL: scratch.url,
    TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
    TEMPORAL_TASK_QUEUE: `drill-${randomBytes(4).toString('hex')}`,
    APP_KEY: randomBytes(32).toString('base64'),
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: baseUrl,
    MEDIA_PORT: String(mediaPort),
    MEDIA_PUBLIC_URL: `ws://127.0.0.1:${mediaPort}`,
    RATE_LIMIT_PER_MINUTE: '1000000',
    LOG_LEVEL: 'error',
    ...options.env,
  };
  const processes = new Map<ClusterRole, ChildProcess>();
  const start = async (role: ClusterRole) => {
    processes.set(role, spawn(process.execPath, ['src/main.ts', role], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, ...env } }));
    if (role === 'api') await servesAt(`${baseUrl}/api/ready`, 'the api role');
    if (role === 'media') await servesAt(`http://127.0.0.1:${mediaPort}/media/health`, 'the media role');
  };
  const stopAll = async () => {
    for (const child of processes.values()) child.kill('SIGKILL');
    await temporal.stop();
    await scratch.drop();
  };

  try {
    if (options.roles.includes('api')) await start('api');
    await Promise.all(options.roles.filter((role) => role !== 'api').map(start));
  } catch (error) {
    await stopAll();
    throw error;
  }
  return {
    baseUrl,
    databaseUrl: scratch.url,
    env,
    async crash(role, downMs = 0) {
      processes.get(role)?.kill('SIGKILL');
      await sleep(downMs);
      await start(role);
    },
    close: stopAll,
  };
}
