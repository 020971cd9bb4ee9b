import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { listenOnLoopback } from '../../support/ports.ts';
import { callRoutes, type TwilioCalls } from './calls.ts';
import { messageRoutes, type TwilioMessages } from './messages.ts';
import { twilioNetwork } from './network.ts';
import { numberRoutes, type TwilioNumbers } from './numbers.ts';

/**
 * A local Twilio that speaks its REST protocol as the `twilio` package and Twilio's docs know it: HTTP Basic
 * auth with the Account SID and auth token, form-encoded bodies, JSON answers with snake_case fields, RFC 2822
 * dates, list pages with `*_page_uri` links, and errors as `{code, message, more_info, status}`. Every host of
 * Twilio's (api., pricing.) is served here, told apart by path, as the adapter's TWILIO_API_BASE sends them.
 */

/** A request as it reached the fake. */
export interface TwilioRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The form-encoded body, decoded. */
  form: URLSearchParams;
  headers: http.IncomingHttpHeaders;
}

export interface TwilioAnswer {
  status: number;
  body?: unknown;
}

/** A resource's method and path; `handle` gets the path's captures and the request. */
export type TwilioRoute = {
  method: string;
  pattern: RegExp;
  handle: (match: string[], request: TwilioRequest) => TwilioAnswer;
};

export interface FakeTwilio {
  /** For TWILIO_API_BASE. */
  url: string;
  accountSid: string;
  authToken: string;
  /** Every request, oldest first (those refused for their credentials too). */
  requests: TwilioRequest[];
  numbers: TwilioNumbers;
  calls: TwilioCalls;
  messages: TwilioMessages;
  /** Answers the next request whose path contains `pathPart` with this error instead (a 5xx, a 429). */
  failNext(pathPart: string, status: number, code: number, message: string): void;
  /** Closes the connection of the next request whose path contains `pathPart` without answering (a network failure). */
  dropNext(pathPart: string): void;
  /**
   * With `placesCalls`: webhooks to `publicUrl` (Parley's PUBLIC_URL) reach `localUrl` (the platform under test),
   * signed over the public URL, as Twilio reaches a developer's machine through a tunnel.
   */
  tunnel(publicUrl: string, localUrl: string): void;
  /** Carries out the next request whose path contains `pathPart`, then closes its connection without answering (an answer lost). */
  loseAnswerNext(pathPart: string): void;
  close(): Promise<void>;
}

/** Twilio's error body. */
export function twilioError(status: number, code: number, message: string): TwilioAnswer {
  return { status, body: { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status } };
}

/** Twilio's dates: RFC 2822 with a numeric zone. */
export function rfc2822(date: Date): string {
  return date.toUTCString().replace('GMT', '+0000');
}

/** A SID: two letters of its kind and 32 hex digits. */
export function sid(prefix: string): string {
  return `${prefix}${randomBytes(16).toString('hex')}`;
}

/** One page of a list resource, as Twilio pages them. */
export function page(uri: string, key: string, items: unknown[], query: URLSearchParams): TwilioAnswer {
  const pageSize = Math.min(Number(query.get('PageSize') ?? 50) || 50, 1000);
  const shown = items.slice(0, pageSize);
  const self = `${uri}?PageSize=${pageSize}&Page=0`;
  return {
    status: 200,
    body: {
      [key]: shown,
      end: Math.max(shown.length - 1, 0), first_page_uri: self, next_page_uri: null, page: 0, page_size: pageSize, previous_page_uri: null, start: 0, uri: self,
    },
  };
}

/**
 * `placesCalls`: the calls placed are played out on a simulated phone network (network.ts) as Twilio would,
 * and `calls.ring` rings the account's numbers; without it, tests move calls along by hand.
 */
export async function startFakeTwilio(options: { placesCalls?: boolean } = {}): Promise<FakeTwilio> {
  const accountSid = sid('AC');
  const authToken = randomBytes(16).toString('hex');
  const requests: TwilioRequest[] = [];
  const failures: { pathPart: string; answer: TwilioAnswer | 'drop' | 'lose' }[] = [];
  const numbers = numberRoutes(accountSid);
  const network = options.placesCalls ? twilioNetwork({ accountSid, authToken, observe: (call) => calls.state.follow(call) }) : undefined;
  const calls = callRoutes(accountSid, authToken, numbers.state, network?.carrier);
  const messages = messageRoutes(accountSid, authToken, numbers.state);
  const routes: TwilioRoute[] = [...numbers.routes, ...calls.routes, ...messages.routes];

  function answer(request: TwilioRequest): TwilioAnswer | 'drop' {
    const credentials = /^Basic (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const [user, password] = Buffer.from(credentials ?? '', 'base64').toString().split(':');
    if (user !== accountSid || password !== authToken) return twilioError(401, 20003, 'Authenticate');
    const failure = failures.findIndex((entry) => request.path.includes(entry.pathPart));
    const planned = failure >= 0 ? failures.splice(failure, 1)[0]!.answer : undefined;
    if (planned && planned !== 'lose') return planned;
    const accountPath = /^\/2010-04-01\/Accounts\/([^/]+)\//.exec(request.path);
    if (accountPath && accountPath[1] !== accountSid) return twilioError(403, 20003, 'Authenticate');
    for (const route of routes) {
      const match = route.method === request.method ? route.pattern.exec(request.path) : null;
      if (!match) continue;
      const answered = route.handle(match.slice(1), request);
      return planned === 'lose' ? 'drop' : answered;
    }
    return twilioError(404, 20404, `The requested resource ${request.path} was not found`);
  }

  const server = http.createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const url = new URL(incoming.url ?? '/', 'http://fake');
      const request: TwilioRequest = {
        method: incoming.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        form: new URLSearchParams(Buffer.concat(chunks).toString()),
        headers: incoming.headers,
      };
      requests.push(request);
      const answered = answer(request);
      if (answered === 'drop') {
        incoming.socket.destroy();
        return;
      }
      const { status, body } = answered;
      if (body === undefined) response.writeHead(status).end();
      else response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
    });
  });
  const { url, close } = await listenOnLoopback(server);
  return {
    url,
    accountSid,
    authToken,
    requests,
    numbers: numbers.state,
    calls: calls.state,
    messages: messages.state,
    failNext(pathPart, status, code, message) {
      failures.push({ pathPart, answer: twilioError(status, code, message) });
    },
    dropNext(pathPart) {
      failures.push({ pathPart, answer: 'drop' });
    },
    tunnel(publicUrl, localUrl) {
      if (!network) throw new Error('the fake Twilio posts webhooks of its own only when it places calls');
      network.tunnel(publicUrl, localUrl);
    },
    async close() {
      await network?.carrier.close();
      await close();
    },
    loseAnswerNext(pathPart) {
      failures.push({ pathPart, answer: 'lose' });
    },
  };
}
