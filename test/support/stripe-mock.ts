import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { listenOnLoopback } from './ports.ts';

/** A request the Stripe adapter sent, as it reached the server. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The form-encoded body, decoded. */
  form: URLSearchParams;
}

export interface StripeMock {
  /** For STRIPE_API_BASE: the recording proxy in front of stripe-mock. */
  url: string;
  /** Every request that went through, oldest first. */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** STRIPE_MOCK_BIN, else what scripts/install-stripe-mock.sh installed in ./.tools/bin, else `stripe-mock` on PATH. */
function stripeMockBinary(): string {
  if (process.env.STRIPE_MOCK_BIN) return process.env.STRIPE_MOCK_BIN;
  const installed = path.resolve('.tools/bin/stripe-mock');
  if (fs.existsSync(installed)) return installed;
  const onPath = (process.env.PATH ?? '').split(path.delimiter).map((dir) => path.join(dir, 'stripe-mock')).find((file) => fs.existsSync(file));
  if (onPath) return onPath;
  throw new Error('stripe-mock is not installed: run scripts/install-stripe-mock.sh (or set STRIPE_MOCK_BIN).');
}

/** Starts stripe-mock on free loopback ports and resolves with its HTTP address once it listens. */
function spawnStripeMock(): Promise<{ child: ChildProcess; address: string }> {
  // Both listeners on ports of their own: its HTTPS default (12112) would collide between test files.
  const child = spawn(stripeMockBinary(), ['-http-addr', '127.0.0.1:', '-https-addr', '127.0.0.1:'], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let output = '';
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Listening for HTTP at address: (127\.0\.0\.1:\d+)/.exec(output);
      if (match) resolve({ child, address: match[1]! });
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`stripe-mock exited (${code}) before listening: ${output}`)));
  });
}

/**
 * stripe-mock for one test file, behind a proxy of ours that records each request (stripe-mock keeps no
 * state, so what was sent, such as the Idempotency-Key header, is what a test can check).
 */
export async function startStripeMock(): Promise<StripeMock> {
  const { child, address } = await spawnStripeMock();
  const requests: RecordedRequest[] = [];
  const proxy = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, form: new URLSearchParams(body.toString()) });
      const forwarded = http.request(`http://${address}${request.url ?? '/'}`, { method: request.method, headers: request.headers }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      });
      forwarded.on('error', () => response.writeHead(502).end());
      forwarded.end(body);
    });
  });
  const { url, close } = await listenOnLoopback(proxy);
  return {
    url,
    requests,
    async close() {
      await close();
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
    },
  };
}
