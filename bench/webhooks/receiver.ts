/**
 * The customer's endpoint for the webhook bench and drill: on the loopback (allowed through FETCH_ALLOW_HOSTS),
 * answering 200 after `answerAfterMs` while up, and keeping, per event id (the Idempotency-Key), when each copy
 * arrived, which call it announced and whether its signature verified. Down, it either refuses connections (its
 * port is closed) or answers 503 at once.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '../../src/webhooks/signature.ts';

export type ReceiverState = 'up' | 'refusing' | 'unavailable';

export interface Arrival {
  /** The call the post-call body names (its `id`). */
  callId: number;
  at: number;
  signed: boolean;
}

export interface BenchReceiver {
  url: string;
  /** Every copy of every event that was answered 200, by event id. */
  arrivals: Map<string, Arrival[]>;
  /** Requests answered 503 while unavailable. */
  refusedWith503: number;
  /** Requests without an Idempotency-Key, or whose body named no call. */
  malformed: number;
  /** Resolves once `count` distinct events have arrived, or after `timeoutMs`; says whether they had. */
  distinct(count: number, timeoutMs: number): Promise<boolean>;
  setState(state: ReceiverState): Promise<void>;
  close(): Promise<void>;
}

export async function startBenchReceiver(options: { answerAfterMs: number; secret: () => string }): Promise<BenchReceiver> {
  const arrivals = new Map<string, Arrival[]>();
  const counters = { refusedWith503: 0, malformed: 0 };
  let state: ReceiverState = 'up';
  let waiter: { count: number; resolve: () => void } | undefined;

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (state === 'unavailable') {
        counters.refusedWith503++;
        response.writeHead(503, { 'content-type': 'text/plain' }).end('down for maintenance');
        return;
      }
      const at = Date.now();
      const body = Buffer.concat(chunks).toString('utf8');
      const eventId = request.headers['idempotency-key'];
      const callId = callOf(body);
      if (typeof eventId !== 'string' || typeof callId !== 'number') counters.malformed++;
      else {
        const signature = request.headers['x-parley-signature'];
        const signed = typeof signature === 'string' && verifySignature(signature, body, options.secret(), Math.floor(at / 1000));
        const copies = arrivals.get(eventId) ?? [];
        copies.push({ callId, at, signed });
        arrivals.set(eventId, copies);
        if (waiter && arrivals.size >= waiter.count) waiter.resolve();
      }
      // The answer comes after the receiver's own work; the arrival is when the request reached it.
      setTimeout(() => response.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}'), options.answerAfterMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const stopListening = () => new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  return {
    url: `http://127.0.0.1:${port}/hooks/parley`,
    arrivals,
    get refusedWith503() {
      return counters.refusedWith503;
    },
    get malformed() {
      return counters.malformed;
    },
    distinct(count, timeoutMs) {
      if (arrivals.size >= count) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiter = undefined;
          resolve(false);
        }, timeoutMs);
        waiter = { count, resolve: () => {
          clearTimeout(timer);
          waiter = undefined;
          resolve(true);
        } };
      });
    },
    async setState(next) {
      // Refusing closes the port (connection refused); coming back opens the same port again.
      if (next === 'refusing' && state !== 'refusing') await stopListening();
      if (next !== 'refusing' && state === 'refusing') await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      state = next;
    },
    async close() {
      if (state !== 'refusing') await stopListening();
    },
  };
}

/** The call a post-call body names, or undefined for a body that is not one. */
function callOf(body: string): unknown {
  try {
    return (JSON.parse(body) as { id?: unknown } | null)?.id;
  } catch {
    return undefined;
  }
}
