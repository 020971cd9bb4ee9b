import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { isPublicAddress, parseAllowList, type AllowList } from './addresses.ts';

/**
 * The one HTTP client for URLs that users supply (websites to scrape, mid-call tool endpoints, webhook
 * URLs). It refuses private, loopback, link-local, metadata and every other special-purpose address
 * (`addresses.ts`) *after* DNS resolution, at connect time (so a name that re-resolves between check and
 * connect cannot slip through), on every redirect hop; and it bounds time and size. `allowHosts` is the only
 * way through, for tests and private deployments.
 */

export type FetchRefusal =
  | 'invalid-url'
  | 'scheme'
  | 'private-address'
  | 'dns'
  | 'timeout'
  | 'too-large'
  | 'too-many-redirects'
  | 'content-type'
  | 'network';

export class FetchRefusedError extends Error {
  override name = 'FetchRefusedError';
  readonly reason: FetchRefusal;
  readonly url: string;
  constructor(reason: FetchRefusal, url: string, message: string) {
    super(message);
    this.reason = reason;
    this.url = url;
  }
}

export interface SafeFetchPolicy {
  /** Host names (exact, case-insensitive), addresses or CIDR ranges allowed although private. */
  allowHosts: string[];
  timeoutMs: number;
  maxBytes: number;
  userAgent: string;
  maxRedirects?: number;
}

export interface SafeRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Overrides the policy's, for callers with tighter budgets (a tool called mid-call). */
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  signal?: AbortSignal;
  /** Checked on the final response's Content-Type before its body is read; false refuses it. */
  accept?: (contentType: string) => boolean;
}

export interface SafeResponse {
  /** The URL that answered, after redirects. */
  url: string;
  status: number;
  ok: boolean;
  headers: Record<string, string>;
  /** The media type without parameters, lower case; '' when absent. */
  contentType: string;
  /** Decompressed body, at most `maxBytes`. */
  body: Buffer;
  redirects: string[];
}

export type SafeFetch = (url: string, request?: SafeRequest) => Promise<SafeResponse>;

function refuseAddress(url: string, hostname: string, address: string): FetchRefusedError {
  return new FetchRefusedError(
    'private-address',
    url,
    hostname === address
      ? `${address} is a private or reserved address and may not be fetched.`
      : `${hostname} resolves to ${address}, a private or reserved address, and may not be fetched.`,
  );
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** A `lookup` for http.request that resolves, then refuses the connection if any answer is not allowed. */
function guardedLookup(url: string, allow: AllowList) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, '');
        return;
      }
      const denied = addresses.find((entry) => !isPublicAddress(entry.address) && !allow.allowsAddress(entry.address));
      if (denied) {
        callback(refuseAddress(url, hostname, denied.address), '');
        return;
      }
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0]?.address ?? '', addresses[0]?.family);
    });
  };
}

function checkTarget(url: URL, allow: AllowList): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchRefusedError('scheme', url.href, `Only http and https URLs may be fetched, not ${url.protocol}`);
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) !== 0 && !isPublicAddress(host) && !allow.allowsAddress(host) && !allow.allowsHost(host)) {
    throw refuseAddress(url.href, host, host);
  }
}

function headerRecord(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function decoded(response: http.IncomingMessage): Readable {
  switch ((response.headers['content-encoding'] ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return response.pipe(zlib.createGunzip());
    case 'deflate':
      return response.pipe(zlib.createInflate());
    case 'br':
      return response.pipe(zlib.createBrotliDecompress());
    default:
      return response;
  }
}

interface Hop {
  status: number;
  headers: Record<string, string>;
  location: string | undefined;
  body: Buffer;
}

function requestOnce(url: URL, request: SafeRequest & { method: string }, context: {
  allow: AllowList;
  maxBytes: number;
  userAgent: string;
  signal: AbortSignal;
}): Promise<Hop> {
  return new Promise((resolve, reject) => {
    const byName = context.allow.allowsHost(url.hostname);
    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(url, {
      method: request.method,
      headers: {
        'user-agent': context.userAgent,
        'accept-encoding': 'gzip, deflate, br',
        ...request.headers,
      },
      signal: context.signal,
      // A host allowed by name skips the address check; every other name is checked on each connect.
      ...(byName ? {} : { lookup: guardedLookup(url.href, context.allow) }),
      agent: false,
    });
    req.on('error', (error) => {
      if (error instanceof FetchRefusedError) reject(error);
      else if (context.signal.aborted) reject(abortReason(context.signal));
      else if ((error as NodeJS.ErrnoException).code === 'ENOTFOUND') reject(new FetchRefusedError('dns', url.href, `${url.hostname} could not be resolved.`));
      else reject(new FetchRefusedError('network', url.href, `${url.href} could not be fetched: ${error.message}`));
    });
    req.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const headers = headerRecord(response.headers);
      const location = status >= 300 && status < 400 ? response.headers.location : undefined;
      if (location !== undefined) {
        response.resume();
        resolve({ status, headers, location, body: Buffer.alloc(0) });
        return;
      }
      const contentType = (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
      if (request.accept && !request.accept(contentType)) {
        req.destroy();
        reject(new FetchRefusedError('content-type', url.href, `${url.href} answered ${contentType || 'no content type'}, which is not accepted here.`));
        return;
      }
      const declared = Number(headers['content-length']);
      if (!headers['content-encoding'] && Number.isFinite(declared) && declared > context.maxBytes) {
        req.destroy();
        reject(tooLarge(url.href, context.maxBytes));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      const body = decoded(response);
      body.on('data', (chunk: Buffer) => {
        size += chunk.length;
        // Counted after decompression, so a small compressed bomb is cut off at the same size.
        if (size > context.maxBytes) {
          req.destroy();
          body.destroy();
          reject(tooLarge(url.href, context.maxBytes));
          return;
        }
        chunks.push(chunk);
      });
      body.on('error', (error) => reject(context.signal.aborted
        ? abortReason(context.signal)
        : new FetchRefusedError('network', url.href, `${url.href} sent a broken body: ${error.message}`)));
      body.on('end', () => resolve({ status, headers, location: undefined, body: Buffer.concat(chunks) }));
    });
    req.end(request.body);
  });
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('The request was aborted.');
}

function tooLarge(url: string, maxBytes: number): FetchRefusedError {
  const size = maxBytes >= 1024 * 1024 ? `${Math.round((maxBytes / (1024 * 1024)) * 10) / 10} MB` : `${Math.round(maxBytes / 1024)} KB`;
  return new FetchRefusedError('too-large', url, `${url} is larger than ${size}.`);
}

export function createSafeFetch(policy: SafeFetchPolicy): SafeFetch {
  const allow = parseAllowList(policy.allowHosts);
  return async (input, request = {}) => {
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      throw new FetchRefusedError('invalid-url', input, `"${input}" is not a valid URL.`);
    }
    const timeoutMs = request.timeoutMs ?? policy.timeoutMs;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    const maxRedirects = request.maxRedirects ?? policy.maxRedirects ?? 5;
    let method = (request.method ?? 'GET').toUpperCase();
    let body = request.body;
    let headers = { ...request.headers };
    const redirects: string[] = [];
    try {
      for (;;) {
        checkTarget(url, allow);
        const hop = await requestOnce(url, { ...request, method, headers, body }, {
          allow,
          maxBytes: request.maxBytes ?? policy.maxBytes,
          userAgent: policy.userAgent,
          signal,
        });
        if (hop.location === undefined) {
          return {
            url: url.href,
            status: hop.status,
            ok: hop.status >= 200 && hop.status < 300,
            headers: hop.headers,
            contentType: (hop.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '',
            body: hop.body,
            redirects,
          };
        }
        if (redirects.length >= maxRedirects) {
          throw new FetchRefusedError('too-many-redirects', url.href, `${input} redirected more than ${maxRedirects} times.`);
        }
        const next = new URL(hop.location, url);
        redirects.push(next.href);
        if (hop.status === 303 || ((hop.status === 301 || hop.status === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
        }
        // Credentials meant for one origin never follow a redirect to another.
        if (next.origin !== url.origin) {
          headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !['authorization', 'cookie'].includes(name.toLowerCase())));
        }
        url = next;
      }
    } catch (error) {
      if (error instanceof FetchRefusedError) throw error;
      if (timeout.aborted) throw new FetchRefusedError('timeout', url.href, `${url.href} did not answer within ${timeoutMs / 1000} s.`);
      throw error;
    }
  };
}

/** The charset a response declares, for decoding its text. */
export function declaredCharset(response: SafeResponse): string | undefined {
  return /charset\s*=\s*"?([\w.:-]+)"?/i.exec(response.headers['content-type'] ?? '')?.[1]?.toLowerCase();
}
