import http from 'node:http';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSafeFetch, FetchRefusedError, isPublicAddress, parseAllowList } from '../../src/lib/safe-fetch.ts';
import { listenOnLoopback } from '../support/ports.ts';

interface Server {
  url: string;
  requests: http.IncomingHttpHeaders[];
  close(): Promise<void>;
}

async function serve(host: string, handler: http.RequestListener): Promise<Server> {
  const requests: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((request, response) => {
    requests.push(request.headers);
    handler(request, response);
  });
  const { url, close } = await listenOnLoopback(server, host);
  return { url, requests, close };
}

const policy = { allowHosts: [], timeoutMs: 2000, maxBytes: 1024 * 1024, userAgent: 'ParleyTest' };

async function refusal(promise: Promise<unknown>): Promise<FetchRefusedError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof FetchRefusedError) return error;
    throw error;
  }
  throw new Error('the fetch was not refused');
}

describe('address classification', () => {
  it.each([
    ['10.1.2.3', false], ['127.0.0.1', false], ['169.254.169.254', false], ['172.20.0.1', false], ['192.168.1.1', false],
    ['100.64.0.1', false], ['0.0.0.0', false], ['::1', false], ['::ffff:127.0.0.1', false], ['::ffff:10.0.0.1', false],
    ['fd00:ec2::254', false], ['fe80::1', false], ['224.0.0.1', false], ['not an address', false],
    ['8.8.8.8', true], ['93.184.216.34', true], ['2606:4700:4700::1111', true], ['::ffff:8.8.8.8', true],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  it('reads allow lists of names, addresses and CIDR ranges, and rejects a malformed range', () => {
    const allow = parseAllowList(['Internal.Example', '10.0.0.5', '192.168.0.0/16', '[fd00::1]']);
    expect(allow.allowsHost('internal.example.')).toBe(true);
    expect(allow.allowsHost('other.example')).toBe(false);
    expect(allow.allowsAddress('10.0.0.5')).toBe(true);
    expect(allow.allowsAddress('10.0.0.6')).toBe(false);
    expect(allow.allowsAddress('192.168.44.1')).toBe(true);
    expect(allow.allowsAddress('::ffff:192.168.44.1')).toBe(true);
    expect(allow.allowsAddress('fd00::1')).toBe(true);
    expect(() => parseAllowList(['10.0.0.0/33'])).toThrow('"10.0.0.0/33" is not a valid CIDR range.');
  });
});

describe('the guarded client', () => {
  let site: Server;
  let other: Server;
  beforeAll(async () => {
    site = await serve('127.0.0.1', (request, response) => {
      const url = new URL(request.url ?? '/', 'http://x');
      if (url.pathname === '/redirect') {
        response.writeHead(302, { location: url.searchParams.get('to') ?? '/' });
        response.end();
      } else if (url.pathname === '/bomb') {
        response.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
        response.end(zlib.gzipSync(Buffer.alloc(10 * 1024 * 1024)));
      } else if (url.pathname === '/hang') {
        // never answers
      } else if (url.pathname === '/json') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{}');
      } else {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end('<p>hello</p>');
      }
    });
    other = await serve('127.0.0.1', (_request, response) => response.end('other'));
  });
  afterAll(async () => {
    await site?.close();
    await other?.close();
  });

  it('refuses loopback, private and metadata targets by default, before any byte is sent', async () => {
    const safeFetch = createSafeFetch(policy);
    const before = site.requests.length;
    expect((await refusal(safeFetch(`${site.url}/`))).reason).toBe('private-address');
    const byName = await refusal(safeFetch(site.url.replace('127.0.0.1', 'localhost')));
    expect(byName.reason).toBe('private-address');
    expect(byName.message).toMatch(/^localhost resolves to (127\.0\.0\.1|::1), a private or reserved address/);
    expect((await refusal(safeFetch('http://169.254.169.254/latest/meta-data/'))).message).toBe('169.254.169.254 is a private or reserved address and may not be fetched.');
    expect((await refusal(safeFetch('http://[::1]:9/'))).reason).toBe('private-address');
    expect((await refusal(safeFetch('file:///etc/passwd'))).reason).toBe('scheme');
    expect(site.requests.length).toBe(before);
  });

  it('lets allowed names, addresses and ranges through, and re-checks every redirect', async () => {
    const byAddress = createSafeFetch({ ...policy, allowHosts: ['127.0.0.1'] });
    const response = await byAddress(`${site.url}/page`);
    expect(response).toMatchObject({ status: 200, ok: true, contentType: 'text/html', url: `${site.url}/page` });
    expect(response.body.toString()).toBe('<p>hello</p>');
    expect(site.requests.at(-1)?.['user-agent']).toBe('ParleyTest');

    // A host allowed by name does not open the way for its redirects: the metadata address stays refused.
    const byName = createSafeFetch({ ...policy, allowHosts: ['localhost'] });
    expect((await byName(site.url.replace('127.0.0.1', 'localhost'))).status).toBe(200);
    const refused = await refusal(byName(`${site.url.replace('127.0.0.1', 'localhost')}/redirect?to=${encodeURIComponent('http://169.254.169.254/')}`));
    expect(refused.reason).toBe('private-address');

    const byRange = createSafeFetch({ ...policy, allowHosts: ['127.0.0.0/8'] });
    const redirected = await byRange(`${site.url}/redirect?to=${encodeURIComponent(`${other.url}/landing`)}`);
    expect(redirected).toMatchObject({ status: 200, url: `${other.url}/landing`, redirects: [`${other.url}/landing`] });
  });

  it('drops credentials when a redirect leaves the origin', async () => {
    const safeFetch = createSafeFetch({ ...policy, allowHosts: ['127.0.0.1'] });
    await safeFetch(`${site.url}/redirect?to=${encodeURIComponent(`${other.url}/x`)}`, { headers: { authorization: 'Bearer secret', 'x-keep': 'yes' } });
    expect(other.requests.at(-1)?.authorization).toBeUndefined();
    expect(other.requests.at(-1)?.['x-keep']).toBe('yes');
    expect(site.requests.at(-1)?.authorization).toBe('Bearer secret');
  });

  it('caps sizes after decompression, bounds time, limits redirects and refuses unwanted content types', async () => {
    const safeFetch = createSafeFetch({ ...policy, allowHosts: ['127.0.0.1'], timeoutMs: 500 });
    const bomb = await refusal(safeFetch(`${site.url}/bomb`));
    expect(bomb.reason).toBe('too-large');
    expect(bomb.message).toBe(`${site.url}/bomb is larger than 1 MB.`);
    const started = Date.now();
    expect((await refusal(safeFetch(`${site.url}/hang`))).reason).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2000);
    const loop = `${site.url}/redirect?to=${encodeURIComponent('/redirect?to=%2Fredirect')}`;
    expect((await refusal(safeFetch(loop, { maxRedirects: 1 }))).reason).toBe('too-many-redirects');
    expect((await refusal(safeFetch(`${site.url}/json`, { accept: (type) => type === 'text/html' }))).reason).toBe('content-type');
  });
});
