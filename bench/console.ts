/**
 * The console's speed: what it ships to the browser (its bundle, raw and gzipped as served), and how long a page
 * takes to be interactive in headless Chromium for a user with a million calls (seeded as bench/calls-list.ts seeds
 * them): from navigation to the page's data shown, its API request's own time beside it as the baseline.
 * Targets (issue 31): the first page interactive in < 1 s; the calls list in < 300 ms.
 *
 *   npm run bench:console -- [--calls 1000000] [--runs 20]
 * Uses a database of its own on the DATABASE_URL server when set, otherwise an embedded PGlite in a temporary
 * directory. Each load is a fresh browser
 * context (a cold cache: the bundle is fetched every time) unless the line says warm; "no early" is the baseline of
 * the page without its early script, whose requests then wait for the bundle.
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
  /** Where the time went: the page's HTML in, the bundle in, the API request sent, its answer in (ms from navigation). */
  htmlMs: number;
  scriptMs: number;
  requestMs: number;
  answerMs: number;
}

async function load(browser: Browser, url: string, token: string, selector: string, api: RegExp, early: boolean, warm?: { context: Awaited<ReturnType<Browser['newContext']>> }): Promise<Load> {
  const context = warm?.context ?? await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.addInitScript(watchScript(token, selector));
  // Every page goes through the same interception, so that the baseline without the early script (src/early.ts,
  // inline) differs from the others by that script alone.
  await page.route(url, async (route) => {
    const response = await route.fetch();
    const body = await response.text();
    await route.fulfill({ response, body: early ? body : body.replace(/<script>[\s\S]*?<\/script>/, '') });
  });
  await page.goto(url);
  // A function, not a string: the console's policy forbids evaluating strings in the page.
  await page.waitForFunction(() => (globalThis as { __shownAt?: number }).__shownAt !== undefined, undefined, { timeout: 30_000 });
  const shownMs = await page.evaluate<number>('window.__shownAt');
  const phases = await page.evaluate((source) => {
    type Timing = { name: string; startTime: number; responseEnd: number; duration: number };
    const resources = performance.getEntriesByType('resource') as unknown as Timing[];
    const request = resources.filter((entry) => new RegExp(source).test(entry.name)).sort((a, b) => b.duration - a.duration)[0];
    const script = resources.find((entry) => /\/app\/assets\/console-[^/]+\.js$/.test(entry.name));
    const navigation = (performance.getEntriesByType as (type: string) => unknown[])('navigation')[0] as Timing;
    return { html: navigation.responseEnd, script: script?.responseEnd ?? 0, request: request?.startTime ?? 0, answer: request?.responseEnd ?? 0, duration: request?.duration ?? 0 };
  }, api.source);
  await page.close();
  if (!warm) await context.close();
  return { shownMs, apiMs: phases.duration, htmlMs: phases.html, scriptMs: phases.script, requestMs: phases.request, answerMs: phases.answer };
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
  // The page itself carries the early script (src/early.ts) inline; it is served as it is, not gzipped.
  const pageBytes = Buffer.byteLength(bundle.page);
  console.log(`${'/app (the page, early inline)'.padEnd(29)} | ${(pageBytes / 1024).toFixed(1).padStart(10)} | ${(pageBytes / 1024).toFixed(1).padStart(10)} | every page`);
  let firstRaw = pageBytes;
  let firstGzip = pageBytes;
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
  const listRequest = /\/api\/user\/calls(\?|$)/;
  // label, page, what shows its data, its main API request, a warm cache, with the early script
  const pages: [string, string, string, RegExp, boolean, boolean][] = [
    ['/app/calls (cold, no early)', '/app/calls', 'table.calls tbody tr', listRequest, false, false],
    ['/app/calls (cold cache)', '/app/calls', 'table.calls tbody tr', listRequest, false, true],
    ['/app/calls (warm cache)', '/app/calls', 'table.calls tbody tr', listRequest, true, true],
    ['/app/calls/{id} (cold cache)', `/app/calls/${firstCall}`, '.turn', /\/api\/user\/calls\/\d+$/, false, true],
    ['/app/overview (cold cache)', '/app/overview', '.figures', /\/api\/user\/calls\/stats/, false, true],
  ];
  const floors: number[] = [];
  for (let index = 0; index < runs; index++) floors.push(await floor(browser, api.url));
  floors.sort((a, b) => a - b);
  const floorMs = percentile(floors, 50);
  console.log(`\n${runs} loads per line, navigation to the page's data on screen; floor: a JSON answer of the same server in a fresh context, p50 ${floorMs.toFixed(0)} ms`);
  console.log('page                          | shown p50 ms | shown p95 ms | API p50 ms | shown / API | shown / floor |  html | script | request | answer (p50 ms from navigation)');
  for (const [label, route, selector, request, warmCache, early] of pages) {
    const warm = warmCache ? { context: await browser.newContext({ viewport: { width: 1280, height: 800 } }) } : undefined;
    if (warm) await load(browser, `${api.url}${route}`, user.token, selector, request, early, warm);
    const loads: Load[] = [];
    for (let index = 0; index < runs; index++) loads.push(await load(browser, `${api.url}${route}`, user.token, selector, request, early, warm));
    await warm?.context.close();
    const shown = loads.map((item) => item.shownMs).sort((a, b) => a - b);
    const apiTimes = loads.map((item) => item.apiMs).sort((a, b) => a - b);
    const ratio = percentile(shown, 50) / Math.max(percentile(apiTimes, 50), 0.1);
    const median = (pick: (item: Load) => number) => percentile(loads.map(pick).sort((a, b) => a - b), 50).toFixed(0);
    console.log(`${label.padEnd(29)} | ${percentile(shown, 50).toFixed(0).padStart(12)} | ${percentile(shown, 95).toFixed(0).padStart(12)} | ${percentile(apiTimes, 50).toFixed(0).padStart(10)} | ${ratio.toFixed(1).padStart(11)} | ${(percentile(shown, 50) / Math.max(floorMs, 0.1)).toFixed(1).padStart(13)} | ${median((item) => item.htmlMs).padStart(5)} | ${median((item) => item.scriptMs).padStart(6)} | ${median((item) => item.requestMs).padStart(7)} | ${median((item) => item.answerMs).padStart(6)}`);
  }
  await browser.close();

  await knex('users').whereIn('id', [user.id, other.id]).delete();
  await api.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
