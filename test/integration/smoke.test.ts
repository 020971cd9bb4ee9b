import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openEmbedded } from '../../src/db/database.ts';
import { freePort } from '../support/ports.ts';
import { sipOptions } from '../support/sip-probe.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const result = await probe().catch(() => undefined);
    if (result !== undefined) return result;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** `npm start` exactly as the README gives it, with nothing configured but a data directory and free ports. */
function npmStart(env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<void> } {
  const cleanEnv = { ...process.env };
  delete cleanEnv.DATABASE_URL;
  delete cleanEnv.TEMPORAL_ADDRESS;
  const child = spawn('npm', ['start'], { cwd: root, env: { ...cleanEnv, ...env, LOG_FORMAT: 'json', PARLEY_ENV_FILE: path.join(env.DATA_DIR ?? '', 'no.env') }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  child.stderr?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, output: () => output, exited };
}

describe('npm start with nothing configured (the embedded default)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-smoke-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('becomes ready, stops on SIGTERM without leaving Temporal behind, and keeps its data across a restart', async () => {
    const env = {
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      MEDIA_PORT: String(await freePort()),
      TEMPORAL_PORT: String(await freePort()),
      TEMPORAL_UI_PORT: String(await freePort()),
      METRICS_PORT: String(await freePort()),
      SIP_HOST: '127.0.0.1',
      SIP_PORT: String(await freePort()),
      SIP_CONTROL_PORT: String(await freePort()),
      RTP_PORT_MIN: '39000',
      RTP_PORT_MAX: '39100',
    };
    const ready = `http://127.0.0.1:${env.PORT}/api/ready?deep=true`;

    for (const run of [1, 2]) {
      const parley = npmStart(env);
      try {
        const body = await waitFor(`run ${run} to be ready`, 90_000, async () => {
          if (parley.child.exitCode !== null) throw new Error(parley.output());
          const response = await fetch(ready);
          return response.status === 200 ? await response.json() as Record<string, unknown> : undefined;
        });
        expect(body).toEqual({ status: 'ok', checks: { database: 'ok', temporal: 'ok', worker: 'ok', embeddings: 'not configured: knowledge base search uses full text only' } });
        expect(parley.output()).toContain(`API          http://localhost:${env.PORT}/api`);
        expect(parley.output()).toContain(`Media        ws://localhost:${env.MEDIA_PORT}/media`);
        expect(await (await fetch(`http://127.0.0.1:${env.MEDIA_PORT}/media/health`)).json()).toEqual({ status: 'ok', sessions: 0 });
        // Carriers probe a SIP trunk with OPTIONS: answered over UDP and TCP once the platform is ready.
        expect(parley.output()).toContain(`SIP          127.0.0.1:${env.SIP_PORT} (UDP and TCP)`);
        expect(await sipOptions('127.0.0.1', Number(env.SIP_PORT), 'udp')).toBe('SIP/2.0 200 OK');
        expect(await sipOptions('127.0.0.1', Number(env.SIP_PORT), 'tcp')).toBe('SIP/2.0 200 OK');
        expect(parley.output()).toContain(`Temporal UI  http://127.0.0.1:${env.TEMPORAL_UI_PORT}`);
        // One registry serves every role's metrics in `all` mode, on its own port only.
        expect(parley.output()).toContain(`Metrics      http://127.0.0.1:${env.METRICS_PORT}/metrics`);
        const metrics = await (await fetch(`http://127.0.0.1:${env.METRICS_PORT}/metrics`)).text();
        for (const name of ['parley_http_requests_total', 'parley_calls_in_progress', 'parley_temporal_task_queue_backlog', 'parley_process_cpu_seconds_total']) {
          expect(metrics).toContain(`# TYPE ${name} `);
        }
        expect(metrics).toContain('parley_http_requests_total{method="GET",route="/api/ready",status="200"}');
        expect((await fetch(`http://127.0.0.1:${env.PORT}/metrics`)).status).toBe(404);

        const parleyPid = Number(fs.readFileSync(path.join(dataDir, 'parley.lock'), 'utf8'));
        const temporalPid = Number(fs.readFileSync(path.join(dataDir, 'temporal.pid'), 'utf8'));
        expect(isRunning(parleyPid)).toBe(true);
        expect(isRunning(temporalPid)).toBe(true);
        const stopping = Date.now();
        parley.child.kill('SIGTERM');
        await parley.exited;
        await waitFor('Parley and its Temporal dev server to exit', 30_000, () =>
          Promise.resolve(isRunning(parleyPid) || isRunning(temporalPid) ? undefined : true));
        process.stdout.write(`smoke: run ${run} stopped in ${Date.now() - stopping} ms\n`);
        // The lock is removed only by the orderly shutdown path, so its absence shows nothing was cut short.
        expect(fs.existsSync(path.join(dataDir, 'parley.lock'))).toBe(false);
        expect(parley.output()).toContain('SIGTERM: stopping');
      } finally {
        if (parley.child.exitCode === null) parley.child.kill('SIGKILL');
      }
    }

    const database = await openEmbedded({ dataDir: path.join(dataDir, 'pg') });
    try {
      const row = await database.knex('platform_checks').count({ count: '*' }).first();
      expect(Number(row?.count)).toBe(2);
    } finally {
      await database.close();
    }
  }, 240_000);
});
