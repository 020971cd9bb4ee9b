/**
 * Parley as `npm start` runs it, for the call drills (bench/crash-drill.ts, line-drill.ts, balance-drill.ts): the
 * whole platform (`src/main.ts all`, with the Temporal dev server as its child) in a process group of its own, on
 * the embedded PGlite under a data directory of the drill's (or a database of its own on DATABASE_URL's server),
 * the embedded speech stack and the fake language model. The account is made with the CLI before the server
 * starts (the embedded database takes one process); the rest goes through the API, as a client's would.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestAssistant } from '../../test/support/assistants.ts';
import { createScratchDatabase } from '../../test/support/scratch-database.ts';
import { apiRequest, type ApiRequest } from '../../test/support/http.ts';
import { freePort } from '../../test/support/ports.ts';
import { benchEnv } from '../platform-env.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface ParleyDeployment {
  env: Record<string, string | undefined>;
  baseUrl: string;
  /** `ws://…` of the media gateway, and `http://…/metrics` of the process's metrics. */
  mediaUrl: string;
  metricsUrl: string;
  appKey: string;
  dataDir: string;
  request: ApiRequest;
  /** Runs `src/cli.ts` with the deployment's environment (not while the embedded database is served); its stdout. */
  cli(...args: string[]): string;
  /** Starts `src/main.ts all` and waits until it is ready. */
  start(): Promise<void>;
  /** The started process's id (its Temporal dev server and speech workers are its children). */
  pid(): number | undefined;
  /** SIGKILLs the whole process group, the Temporal dev server included: a crash, nothing drained. */
  kill(): Promise<void>;
  /** Stops it as an operator does (SIGTERM), then removes what the drill made. */
  close(): Promise<void>;
}

export async function deployParley(options: { name: string; llmUrl: string; extra?: Record<string, string> }): Promise<ParleyDeployment> {
  const scratch = process.env.DATABASE_URL ? await createScratchDatabase(process.env.DATABASE_URL, `parley_${options.name}`) : undefined;
  if (process.env.DATABASE_URL && !scratch) throw new Error(`The ${options.name} drill creates a database of its own on DATABASE_URL's server, and may not.`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `parley-${options.name}-`));
  const metricsPort = await freePort();
  const { env, baseUrl, appKey } = await benchEnv({
    dataDir, llmUrl: options.llmUrl, extra: { METRICS_PORT: String(metricsPort), ...(scratch ? { DATABASE_URL: scratch.url } : {}), ...options.extra },
  });
  let child: ChildProcess | undefined;
  let exited: Promise<unknown> = Promise.resolve();
  const run = (args: string[]) => spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'inherit'], detached: true });

  const deployment: ParleyDeployment = {
    env,
    baseUrl,
    mediaUrl: `ws://127.0.0.1:${env.MEDIA_PORT}`,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    appKey,
    dataDir,
    request: apiRequest(baseUrl),
    cli(...args) {
      const done = spawnSync(process.execPath, ['src/cli.ts', ...args], { env, encoding: 'utf8' });
      if (done.status !== 0) throw new Error(`cli ${args[0]}: ${done.stderr}`);
      return done.stdout;
    },
    async start() {
      child = run(['src/main.ts', 'all']);
      const started = child;
      exited = new Promise((resolve) => started.once('exit', resolve));
      for (const began = Date.now(); (await fetch(`${baseUrl}/api/ready`).then((answer) => answer.status, () => 0)) !== 200; await sleep(200)) {
        if (started.exitCode !== null) throw new Error(`Parley exited with ${started.exitCode} while starting`);
        if (Date.now() - began > 180_000) throw new Error('Parley did not start within 180 s');
      }
    },
    pid: () => child?.pid,
    async kill() {
      if (child?.pid) process.kill(-child.pid, 'SIGKILL');
      await exited;
      child = undefined;
    },
    async close() {
      if (child?.pid) {
        process.kill(-child.pid, 'SIGTERM');
        await Promise.race([exited, sleep(30_000)]);
        if (child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
      }
      await scratch?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return deployment;
}

/**
 * An account with `balanceUsd` and an API key, made with the CLI before the server starts. Once it runs,
 * `assistant()` gives it an assistant, on a number bought with the sandbox's test card when `phone`.
 */
export function createCallingAccount(parley: ParleyDeployment, options: { balanceUsd: number; initialMessage?: string }) {
  const email = `drill-${Date.now()}@example.test`;
  const token = (JSON.parse(parley.cli('user:create', '--name', 'Drill', '--email', email, '--balance', String(options.balanceUsd))) as { api_key: string }).api_key;
  return {
    token,
    async assistant(phone = false): Promise<{ id: number; phoneNumber?: string }> {
      const { request } = parley;
      let number: { id: number; phone_number: string } | undefined;
      if (phone) {
        const card = await request('POST', '/user/payment-methods', { token, body: { payment_method: 'pm_card_visa' } });
        if (card.status >= 300) throw new Error(`adding a card: HTTP ${card.status} ${card.text}`);
        const offers = await request<{ data: { phone_number: string }[] }>('GET', '/user/phone-numbers/search?country_code=US', { token });
        const bought = await request<{ data: { id: number; phone_number: string } }>('POST', '/user/phone-numbers/purchase', { token, body: { phone_number: offers.body.data[0]?.phone_number } });
        if (bought.status !== 201) throw new Error(`buying a number: HTTP ${bought.status} ${bought.text}`);
        number = bought.body.data;
      }
      const assistant = await createTestAssistant(parley, { token }, {
        initial_message: options.initialMessage ?? 'Hello, this is Parley.', ...(number ? { phone_number_id: number.id } : {}),
      });
      return { id: assistant.id, ...(number ? { phoneNumber: number.phone_number } : {}) };
    },
  };
}

/** Polls `read` every `everyMs` until it answers something, for at most `ms`; undefined past that. */
export async function waitFor<T>(read: () => Promise<T | undefined>, ms: number, everyMs = 200): Promise<T | undefined> {
  for (const began = Date.now(); Date.now() - began < ms; await sleep(everyMs)) {
    const value = await read();
    if (value !== undefined) return value;
  }
  return undefined;
}
