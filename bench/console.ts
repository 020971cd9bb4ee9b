/**
 * The console's speed: what it ships to the browser (its bundle, raw and gzipped as served), and how long a page
 * takes to be interactive in headless Chromium for a user with a million calls (seeded as bench/calls-list.ts seeds
 * them): from navigation to the page's data shown, its API request's own time beside it as the baseline.
 * Targets (issue 31): the first page interactive in < 1 s; the calls list in < 300 ms.
 *
 *   npm run bench:console -- [--calls 1000000] [--runs 20]
 * Uses a database of its own on the DATABASE_URL server when set, otherwise an embedded PGlite in a temporary
 * directory. Each load is a fresh browser
 * context (a cold cache: the bundle is fetched every time) unless the line says warm.
 */
import { parseArgs } from 'node:util';
import type { Browser } from 'playwright-core';
import { consoleBundle } from '../src/api/console.ts';
import { launchChromium } from '../test/support/browser.ts';
import { startBenchApi } from './api-server.ts';
import { createBenchUser, seedCalls } from './calls/seed-calls.ts';
import { percentile } from './percentile.ts';

/** Before any script of the page: the session, and a watch that notes when the page's data is first on screen. */
const watchScript = (token: string, selector: string) => `
  sessionStorage.setItem('parley:session', ${JSON.stringify(JSON.stringify({ token, name: 'Bench', email: 'bench@example.test', admin: false }))});
  new MutationObserver((_, observer) => {
    if (document.querySelector(${JSON.stringify(selector)})) {
      window.__shownAt = performance.now();
      observer.disconnect();
    }
  }).observe(document, { childList: true, subtree: true });`;

interface Load {
  shownMs: number;
  apiMs: number;
}

async function load(browser: Browser, url: string, token: string, selector: string, api: RegExp, warm?: { context: Awaited<ReturnType<Browser['newContext']>> }): Promise<Load> {
  const context = warm?.context ?? await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.addInitScript(watchScript(token, selector));
  await page.goto(url);
  // A function, not a string: the console's policy forbids evaluating strings in the page.
  await page.waitForFunction(() => (globalThis as { __shownAt?: number }).__shownAt !== undefined, undefined, { timeout: 30_000 });
  const shownMs = await page.evaluate<number>('window.__shownAt');
  const apiMs = await page.evaluate<number>(`performance.getEntriesByType('resource').filter((entry) => ${api.toString()}.test(entry.name)).reduce((most, entry) => Math.max(most, entry.duration), 0)`);
  await page.close();
  if (!warm) await context.close();
  return { shownMs, apiMs };
}

/** The floor under any page in this run: a fresh context loading a tiny JSON answer of the same server. */
async function floor(browser: Browser, url: string): Promise<number> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${url}/api/health`);
  const loaded = await page.evaluate<number>(`performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd`);
  await context.close();
  return loaded;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { calls: { type: 'string', default: '1000000' }, runs: { type: 'string', default: '20' } } });
  const calls = Number(values.calls);
  const runs = Number(values.runs);

  const bundle = await consoleBundle();
  console.log('Bundle shipped to the browser (as served: gzip)');
  console.log('file                          |     raw KB |    gzip KB | loaded');
  let firstRaw = 0;
  let firstGzip = 0;
  for (const [name, asset] of bundle.assets) {
    if (name.endsWith('.map')) continue;
    const first = name.startsWith('console-');
    if (first) {
      firstRaw += asset.body.length;
      firstGzip += asset.gzipped?.length ?? 0;
    }
    console.log(`${name.padEnd(29)} | ${(asset.body.length / 1024).toFixed(1).padStart(10)} | ${((asset.gzipped?.length ?? 0) / 1024).toFixed(1).padStart(10)} | ${first ? 'every page' : 'the overview (chart)'}`);
  }
  console.log(`first page total               | ${(firstRaw / 1024).toFixed(1).padStart(10)} | ${(firstGzip / 1024).toFixed(1).padStart(10)} |`);

  const api = await startBenchApi({ scratch: true });
  const { config, knex } = api;

  const seedStarted = performance.now();
  const user = await createBenchUser(knex, api.url);
  const other = await createBenchUser(knex, api.url);
  await seedCalls(knex, [user, other], calls, Math.ceil(calls / 50));
  await knex.raw('vacuum analyze calls, call_counts, call_month_counts, call_day_counts');
  console.log(`\n${calls} calls of one user (+ ${Math.ceil(calls / 50)} of another), seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s, ${config.database.url ? 'PostgreSQL (DATABASE_URL)' : 'embedded PGlite'}; the machine may be shared`);

  const firstCall = (await knex('calls').where('user_id', user.id).min({ id: 'id' }).first() as { id: number }).id;
  const browser = await launchChromium();
  const pages: [string, string, string, RegExp, boolean][] = [
    ['/app/calls (cold cache)', '/app/calls', 'table.calls tbody tr', /\/api\/user\/calls(\?|$)/, false],
    ['/app/calls (warm cache)', '/app/calls', 'table.calls tbody tr', /\/api\/user\/calls(\?|$)/, true],
    ['/app/calls/{id} (cold cache)', `/app/calls/${firstCall}`, '.turn', /\/api\/user\/calls\/\d+$/, false],
    ['/app/overview (cold cache)', '/app/overview', '.figures', /\/api\/user\/calls\/stats/, false],
  ];
  const floors: number[] = [];
  for (let index = 0; index < runs; index++) floors.push(await floor(browser, api.url));
  floors.sort((a, b) => a - b);
  const floorMs = percentile(floors, 50);
  console.log(`\n${runs} loads per line, navigation to the page's data on screen; floor: a JSON answer of the same server in a fresh context, p50 ${floorMs.toFixed(0)} ms`);
  console.log('page                          | shown p50 ms | shown p95 ms | API p50 ms | shown / API | shown / floor');
  for (const [label, route, selector, request, warmCache] of pages) {
    const warm = warmCache ? { context: await browser.newContext({ viewport: { width: 1280, height: 800 } }) } : undefined;
    if (warm) await load(browser, `${api.url}${route}`, user.token, selector, request, warm);
    const loads: Load[] = [];
    for (let index = 0; index < runs; index++) loads.push(await load(browser, `${api.url}${route}`, user.token, selector, request, warm));
    await warm?.context.close();
    const shown = loads.map((item) => item.shownMs).sort((a, b) => a - b);
    const apiTimes = loads.map((item) => item.apiMs).sort((a, b) => a - b);
    const ratio = percentile(shown, 50) / Math.max(percentile(apiTimes, 50), 0.1);
    console.log(`${label.padEnd(29)} | ${percentile(shown, 50).toFixed(0).padStart(12)} | ${percentile(shown, 95).toFixed(0).padStart(12)} | ${percentile(apiTimes, 50).toFixed(0).padStart(10)} | ${ratio.toFixed(1).padStart(11)} | ${(percentile(shown, 50) / Math.max(floorMs, 0.1)).toFixed(1).padStart(13)}`);
  }
  await browser.close();

  await knex('users').whereIn('id', [user.id, other.id]).delete();
  await api.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
