import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
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

/** The PaymentIntent stripe-mock answers with: its bundled one is always `requires_payment_method`, a charge that did not go through. */
export type PaymentIntentStatus = 'succeeded' | 'requires_action';

/**
 * stripe-mock's own fixtures with a PaymentIntent of `status`: one that succeeded, or one that waits for 3-D
 * Secure (as Stripe answers an on-session charge of a card that asks for it). scripts/install-stripe-mock.sh
 * copies them.
 */
function fixturesWith(status: PaymentIntentStatus): string {
  const bundled = path.resolve('.tools/stripe-mock/fixtures3.json');
  if (!fs.existsSync(bundled)) throw new Error(`${bundled} is missing: run scripts/install-stripe-mock.sh.`);
  const fixtures = JSON.parse(fs.readFileSync(bundled, 'utf8')) as { resources: Record<string, Record<string, unknown>> };
  const nextAction = status === 'requires_action' ? { type: 'use_stripe_sdk', use_stripe_sdk: { type: 'three_d_secure_redirect' } } : null;
  fixtures.resources.payment_intent = { ...fixtures.resources.payment_intent, status, last_payment_error: null, next_action: nextAction };
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'parley-stripe-mock-')), 'fixtures.json');
  fs.writeFileSync(file, JSON.stringify(fixtures));
  return file;
}

/** Starts stripe-mock on free loopback ports and resolves with its HTTP address once it listens. */
function spawnStripeMock(fixtures: string | undefined): Promise<{ child: ChildProcess; address: string }> {
  // Both listeners on ports of their own: its HTTPS default (12112) would collide between test files.
  const args = ['-http-addr', '127.0.0.1:', '-https-addr', '127.0.0.1:', ...(fixtures ? ['-fixtures', fixtures] : [])];
  const child = spawn(stripeMockBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
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
 * state, so what was sent, such as the Idempotency-Key header, is what a test can check). With
 * `paymentIntentStatus` every PaymentIntent it answers has that status.
 */
export async function startStripeMock(options: { paymentIntentStatus?: PaymentIntentStatus } = {}): Promise<StripeMock> {
  const fixtures = options.paymentIntentStatus ? fixturesWith(options.paymentIntentStatus) : undefined;
  const { child, address } = await spawnStripeMock(fixtures);
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
      if (fixtures) fs.rmSync(path.dirname(fixtures), { recursive: true, force: true });
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
    },
  };
}
