import http from 'node:http';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress, parseAllowList } from '../../src/lib/addresses.ts';
import { createSafeFetch, FetchRefusedError } from '../../src/lib/safe-fetch.ts';
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

  // Every special-purpose range of both IANA registries, and the IPv6 forms that carry an IPv4 address.
  it.each([
    ['0.1.2.3', false], ['192.0.0.9', false], ['192.0.2.1', false], ['192.31.196.1', false], ['192.52.193.1', false],
    ['192.88.99.1', false], ['192.175.48.1', false], ['198.19.255.1', false], ['198.51.100.7', false], ['203.0.113.9', false],
    ['239.255.255.250', false], ['240.0.0.1', false], ['255.255.255.255', false],
    ['::', false], ['0:0:0:0:0:0:0:1', false], ['fe80::1%eth0', false], ['fec0::1', false], ['ff02::1', false], ['fc00::1', false],
    ['100::1', false], ['100:0:0:1::1', false], ['2001::1', false], ['2001:1::1', false], ['2001:1ff::1', false], ['2001:db8::1', false],
    ['2620:4f:8000::1', false], ['3fff::1', false], ['5f00::1', false], ['4000::1', false],
    // IPv4-compatible and IPv4-translated: refused whatever they embed.
    ['::127.0.0.1', false], ['::7f00:1', false], ['::8.8.8.8', false], ['::ffff:0:127.0.0.1', false], ['::ffff:0:808:808', false],
    // IPv4-mapped, NAT64 and 6to4: as public as the IPv4 address they embed.
    ['::ffff:7f00:1', false], ['::ffff:a9fe:a9fe', false], ['::ffff:0.0.0.0', false], ['::ffff:808:808', true],
    ['64:ff9b::7f00:1', false], ['64:ff9b::169.254.169.254', false], ['64:ff9b::808:808', true], ['64:ff9b:1::808:808', false],
    ['2002:7f00:1::', false], ['2002:a00:1::1', false], ['2002::', false], ['2002:808:808::1', true],
    ['1.1.1.1', true], ['2a00:1450:4001:81a::200e', true],
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
    // An allowed IPv4 address allows its mapped form (the same socket), not the compatible one.
    expect(allow.allowsAddress('::ffff:a00:5')).toBe(true);
    expect(allow.allowsAddress('::10.0.0.5')).toBe(false);
    expect(allow.allowsAddress('not an address')).toBe(false);
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

describe('private addresses in the forms an attacker writes them', () => {
  let target: http.Server;
  let targetHits = 0;
  let port = 0;
  let portal: Server;
  beforeAll(async () => {
    // Listening on every interface (both families where the machine has IPv6): each form below reaches it
    // unless the guard refuses it.
    target = http.createServer((_request, response) => {
      targetHits++;
      response.end('internal');
    });
    await new Promise<void>((resolve) => target.listen(0, resolve));
    port = (target.address() as { port: number }).port;
    // The one allowed host, on another loopback address, redirecting wherever it is told.
    portal = await serve('127.0.0.2', (request, response) => {
      response.writeHead(302, { location: new URL(request.url ?? '/', 'http://x').searchParams.get('to') ?? '/' });
      response.end();
    });
  });
  afterAll(async () => {
    await portal?.close();
    target?.closeAllConnections();
    await new Promise((resolve) => target?.close(resolve));
  });

  const forms = () => [
    `http://2130706433:${port}/`, `http://0177.0.0.1:${port}/`, `http://0x7f.0.0.1:${port}/`, `http://0x7f000001:${port}/`,
    `http://127.1:${port}/`, `http://127.0.0.1.:${port}/`, `http://0.0.0.0:${port}/`, `http://0:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`, `http://[::ffff:7f00:1]:${port}/`, `http://[::127.0.0.1]:${port}/`,
    `http://[::ffff:0:127.0.0.1]:${port}/`, `http://[64:ff9b::127.0.0.1]:${port}/`, `http://[2002:7f00:1::]:${port}/`,
    `http://[::]:${port}/`, `http://[::1]:${port}/`,
  ];

  async function reasons(fetchEach: (form: string) => Promise<unknown>, list: string[]): Promise<[string, string][]> {
    const out: [string, string][] = [];
    for (const form of list) out.push([form, (await refusal(fetchEach(form))).reason]);
    return out;
  }

  it('reaches the target when it is allowed, so a refusal below is the guard\'s', async () => {
    const allowed = createSafeFetch({ ...policy, allowHosts: ['127.0.0.1'] });
    expect((await allowed(`http://127.0.0.1:${port}/`)).body.toString()).toBe('internal');
    expect(targetHits).toBe(1);
  });

  it('refuses decimal, octal and hex IPv4, 0.0.0.0, mapped, compatible and translated IPv6, and [::]', async () => {
    const safeFetch = createSafeFetch({ ...policy, allowHosts: ['127.0.0.2'] });
    const before = targetHits;
    const list = forms();
    expect(await reasons((form) => safeFetch(form), list)).toEqual(list.map((form) => [form, 'private-address']));
    expect((await refusal(safeFetch(`http://2130706433:${port}/`))).message).toBe('127.0.0.1 is a private or reserved address and may not be fetched.');
    expect((await refusal(safeFetch(`http://[::127.0.0.1]:${port}/`))).message).toBe('::7f00:1 is a private or reserved address and may not be fetched.');
    // A trailing-dot name resolves to loopback, or not at all, depending on the resolver: never to the target.
    expect(['private-address', 'dns']).toContain((await refusal(safeFetch(`http://localhost.:${port}/`))).reason);
    expect(targetHits).toBe(before);
  });

  it('refuses every one of them as the target of a redirect from an allowed host', async () => {
    const safeFetch = createSafeFetch({ ...policy, allowHosts: ['127.0.0.2'] });
    const before = targetHits;
    const list = forms();
    const via = (form: string) => safeFetch(`${portal.url}/redirect?to=${encodeURIComponent(form)}`);
    expect(await reasons(via, list)).toEqual(list.map((form) => [form, 'private-address']));
    expect(['private-address', 'dns']).toContain((await refusal(via(`http://localhost.:${port}/`))).reason);
    expect(targetHits).toBe(before);
  });
});
