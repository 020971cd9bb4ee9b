/**
 * Hostile uploads benchmark: `npm run bench:hostile-uploads -- [--pdf-mb 300] [--docx-mb 64,160] [--txt-mb 4.5]`.
 * Starts Parley as `npm start` does (every role in one process, embedded PGlite, the Temporal dev server;
 * TEMPORAL_CLI or PATH names the CLI) in a scratch data directory, uploads the files of issue 13 at full size
 * (a PDF whose one content stream expands to `--pdf-mb` MB of text operators, and DOCX files holding
 * `--docx-mb` MB of XML that pass the bomb checks) and a text file of `--txt-mb` MB of one-letter words, just
 * under the text cap, which is chunked and stored (thousands of chunks); meanwhile has another user call `GET /api/health`,
 * `GET /api/user/me` and `GET /api/user/knowledgebases` without pause. It prints how each document ended, the
 * other user's worst and p99 latency and failed answers, and the memory (RSS) of the server and of its
 * extraction processes.
 * Never part of `npm test`.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { makeExpandingPdf, makeLargeDocx } from '../test/support/hostile-files.ts';
import { percentile } from './percentile.ts';
import { freePort } from '../test/support/ports.ts';

const { values } = parseArgs({
  options: { 'pdf-mb': { type: 'string', default: '300' }, 'docx-mb': { type: 'string', default: '64,160' }, 'txt-mb': { type: 'string', default: '4.5' } },
});
const megabyte = 1024 * 1024;


function rssOf(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0; // ended meanwhile
  }
}

/** The server's RSS, and that of its extraction processes (src/knowledge/ingestion/extraction-process.ts). */
function memoryOf(pid: number): { server: number; extraction: number } {
  let extraction = 0;
  try {
    for (const child of fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number)) {
      if (fs.readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('extraction-process')) extraction += rssOf(child);
    }
  } catch {
    // a child ended meanwhile; the next sample counts again
  }
  return { server: rssOf(pid), extraction };
}

// Built before the server starts: building them blocks this process for seconds, during which the server
// would close idle keep-alive connections that the client then reuses.
const files = [
  { name: 'expanding.pdf', type: 'pdf', data: makeExpandingPdf(Number(values['pdf-mb']) * megabyte), expands: `${values['pdf-mb']} MB of text operators` },
  ...values['docx-mb'].split(',').map((size) => ({ name: `xml-${size}mb.docx`, type: 'docx', data: makeLargeDocx(Number(size) * megabyte), expands: `${size} MB of XML` })),
  ...(Number(values['txt-mb']) > 0
    ? [{ name: 'letters.txt', type: 'txt', data: Buffer.from('a '.repeat(Math.floor(Number(values['txt-mb']) * megabyte / 2))), expands: 'one paragraph of one-letter words' }]
    : []),
];

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-'));
const port = await freePort();
const baseUrl = `http://127.0.0.1:${port}/api`;
const server = spawn(process.execPath, ['src/main.ts', 'all'], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: {
    ...process.env,
    NODE_ENV: 'development',
    PARLEY_ENV_FILE: path.join(dataDir, 'none.env'),
    DATA_DIR: dataDir,
    PORT: String(port),
    MEDIA_PORT: String(await freePort()),
    TEMPORAL_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
    // The other user calls without pause: this measures waiting, not the per-credential rate limit.
    RATE_LIMIT_PER_MINUTE: '1000000',
    LOG_FORMAT: 'json',
  },
});
server.stdout.resume();

async function call(method: string, route: string, options: { token?: string; body?: unknown; form?: FormData } = {}) {
  const response = await fetch(`${baseUrl}${route}`, {
    method,
    headers: {
      accept: 'application/json',
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.body ? { 'content-type': 'application/json' } : {}),
    },
    body: options.form ?? (options.body ? JSON.stringify(options.body) : undefined),
  });
  return { status: response.status, body: await response.json().catch(() => undefined) as any };
}

async function register(name: string): Promise<string> {
  const response = await call('POST', '/auth/register', { body: { name, email: `${name}@bench.example`, password: 'correct horse battery' } });
  if (response.status !== 201) throw new Error(`register ${name}: HTTP ${response.status}`);
  return response.body.token as string;
}

try {
  for (let started = Date.now(); ; await new Promise((resolve) => setTimeout(resolve, 250))) {
    if (Date.now() - started > 120_000) throw new Error('Parley did not start within 2 minutes');
    if ((await call('GET', '/ready').catch(() => ({ status: 0 }))).status === 200) break;
  }
  const attacker = await register('attacker');
  const bystander = await register('bystander');
  const kb = (await call('POST', '/user/knowledgebases', { token: attacker, body: { name: 'Hostile files' } })).body.data.id as number;

  const memoryBefore = memoryOf(server.pid!).server;
  let uploading = true;
  const latencies: number[] = [];
  const failures: string[] = [];
  let worst = { ms: 0, route: '' };
  const peak = { server: memoryBefore, extraction: 0, total: memoryBefore };
  const sampler = setInterval(() => {
    const { server: serverRss, extraction } = memoryOf(server.pid!);
    peak.server = Math.max(peak.server, serverRss);
    peak.extraction = Math.max(peak.extraction, extraction);
    peak.total = Math.max(peak.total, serverRss + extraction);
  }, 100);
  const bystanderLoop = (async () => {
    while (uploading) {
      for (const route of ['/health', '/user/me', '/user/knowledgebases']) {
        const started = performance.now();
        const response = await call('GET', route, { token: bystander }).catch((error: Error) => ({ status: `${error.message} ${String((error.cause as Error | undefined)?.message ?? '')}`, body: undefined }));
        const ms = performance.now() - started;
        latencies.push(ms);
        if (ms > worst.ms) worst = { ms, route };
        if (response.status !== 200) failures.push(`GET ${route}: ${response.status}`);
      }
    }
  })();

  const started = Date.now();
  const ids = await Promise.all(files.map(async (file) => {
    const form = new FormData();
    form.append('name', file.name);
    form.append('type', file.type);
    form.append('file', new Blob([new Uint8Array(file.data)]), file.name);
    const response = await call('POST', `/user/knowledgebases/${kb}/documents`, { token: attacker, form });
    if (response.status !== 201) throw new Error(`upload ${file.name}: HTTP ${response.status} ${JSON.stringify(response.body)}`);
    return response.body.data.id as number;
  }));
  const outcomes = await Promise.all(ids.map(async (id) => {
    for (;;) {
      const document = (await call('GET', `/user/knowledgebases/${kb}/documents/${id}`, { token: attacker })).body.data;
      if (document.status !== 'processing') return { ...document, seconds: (Date.now() - started) / 1000 };
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }));
  uploading = false;
  await bystanderLoop;
  clearInterval(sampler);
  latencies.sort((a, b) => a - b);

  for (const [index, file] of files.entries()) {
    const outcome = outcomes[index];
    console.log(`${file.name} (${(file.data.length / megabyte).toFixed(1)} MB, ${file.expands}): ${outcome.status} after ${outcome.seconds.toFixed(1)} s${outcome.error ? ` — ${outcome.error}` : ''}`);

  }
  console.log(`another user: ${latencies.length} requests, worst ${worst.ms.toFixed(0)} ms (GET ${worst.route}), p99 ${percentile(latencies, 99).toFixed(0)} ms, p50 ${percentile(latencies, 50).toFixed(0)} ms, ${failures.length} failed${failures.length ? ` (${[...new Set(failures)].join(', ')})` : ''}`);
  const mb = (bytes: number) => `${(bytes / megabyte).toFixed(0)} MB`;
  console.log(`memory (RSS): server ${mb(memoryBefore)} before the uploads, peak ${mb(peak.server)} during them, ${mb(memoryOf(server.pid!).server)} after; `
    + `extraction processes peak ${mb(peak.extraction)}; server and extraction together peak ${mb(peak.total)}`);
} finally {
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  fs.rmSync(dataDir, { recursive: true, force: true });
}
