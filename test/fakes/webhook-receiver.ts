import http from 'node:http';
import { listenOnLoopback } from '../support/ports.ts';

/** One request as the receiver got it: the raw body, so a signature can be checked over the exact bytes. */
export interface ReceivedWebhook {
  method: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Answers this long after the request arrived (it is recorded at once). */
  delayMs?: number;
}

export interface WebhookReceiver {
  /** Where to point a webhook: `http://127.0.0.1:<port>/hook`. */
  url: string;
  received: ReceivedWebhook[];
  /** Answers the next requests with these, in order; after them, 200 with `{"ok":true}`. */
  script(...answers: ScriptedAnswer[]): void;
  /** While true, every connection is dropped before an answer (a receiver that is down); nothing is recorded. */
  down: boolean;
  /** Resolves once `count` requests have arrived in all. */
  arrived(count: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/** A customer's webhook endpoint on loopback (allowed through FETCH_ALLOW_HOSTS), answering as scripted. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const answers: ScriptedAnswer[] = [];
  const waiting: { count: number; resolve: (all: ReceivedWebhook[]) => void }[] = [];
  const state = { down: false };
  const server = http.createServer((request, response) => {
    if (state.down) {
      request.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ method: request.method ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const answer = answers.shift() ?? { status: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' };
      const send = () => response.writeHead(answer.status, answer.headers).end(answer.body ?? '');
      if (answer.delayMs) {
        const timer = setTimeout(send, answer.delayMs);
        // A client that gave up waiting gets nothing.
        response.once('close', () => clearTimeout(timer));
      } else send();
      for (const waiter of waiting.filter((entry) => received.length >= entry.count)) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve([...received]);
      }
    });
  });
  const { url, close } = await listenOnLoopback(server);
  return {
    url: `${url}/hook`,
    received,
    get down() {
      return state.down;
    },
    set down(value: boolean) {
      state.down = value;
    },
    script: (...scripted) => answers.push(...scripted),
    arrived: (count) => received.length >= count
      ? Promise.resolve([...received])
      : new Promise((resolve) => waiting.push({ count, resolve })),
    close,
  };
}
