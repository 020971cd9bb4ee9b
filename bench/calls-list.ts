/**
 * `GET /user/calls` over a million calls of one user: seeds them (one INSERT … SELECT over generate_series,
 * plus other users' calls), then sends requests one at a time through the real HTTP route and prints p50/p95
 * per filter combination, each request with values drawn afresh. Target: p95 <= 50 ms on PostgreSQL.
 *
 *   npm run bench:calls-list -- [--calls 1000000] [--others 5] [--requests 200] [--keep]
 * Uses DATABASE_URL when set (the target applies there), otherwise an embedded PGlite in a temporary
 * directory. The seeded users are deleted at the end, unless `--keep` leaves them for looking at query plans.
 *
 * The calls have the shape of a year of real traffic: 20 assistants (6 inbound, 14 outbound), web calls on
 * any of them, 10 campaigns on the outbound ones, statuses in plausible proportions, about five calls per
 * client number, and ids rising with `created_at`.
 */
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { CALL_STATUSES, CALL_TYPES } from '../src/resources/calls/model.ts';
import { startBenchApi } from './api-server.ts';
import { CAMPAIGN_BASE, CAMPAIGNS, createBenchUser, DAYS, seedCalls } from './calls/seed-calls.ts';
import { percentile } from './percentile.ts';

interface Seeded {
  token: string;
  assistantIds: number[];
  /** Some calls of the user, whose values the filters take so that most requests find something. */
  samples: { status: string; type: string; clientPhoneNumber: string; assistantId: number | null; campaignId: number | null; createdAt: Date }[];
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;
const day = (date: Date, plusDays = 0) => new Date(date.getTime() + plusDays * 86_400_000).toISOString().slice(0, 10);

/** Each combination draws its query string afresh per request. */
function combinations(seeded: Seeded): [string, () => Record<string, string | number>][] {
  const sample = () => pick(seeded.samples);
  const range = () => {
    const from = sample().createdAt;
    return { date_from: day(from), date_to: day(from, 1 + Math.floor(Math.random() * 90)) };
  };
  return [
    ['none', () => ({})],
    ['status', () => ({ status: pick(CALL_STATUSES) })],
    ['type', () => ({ type: pick(CALL_TYPES) })],
    ['phone_number', () => ({ phone_number: sample().clientPhoneNumber })],
    ['assistant_id', () => ({ assistant_id: pick(seeded.assistantIds) })],
    ['campaign_id', () => ({ campaign_id: CAMPAIGN_BASE + Math.floor(Math.random() * CAMPAIGNS) })],
    ['date range (1-90 days)', range],
    ['date range (whole year)', () => ({ date_from: day(new Date(), -DAYS - 1), date_to: day(new Date()) })],
    ['status + type', () => ({ status: pick(CALL_STATUSES), type: pick(CALL_TYPES) })],
    ['assistant_id + date range', () => ({ assistant_id: pick(seeded.assistantIds), ...range() })],
    ['all filters', () => {
      const call = sample();
      return {
        status: call.status, type: call.type, phone_number: call.clientPhoneNumber, assistant_id: call.assistantId ?? pick(seeded.assistantIds),
        ...(call.campaignId ? { campaign_id: call.campaignId } : {}), date_from: day(call.createdAt, -30), date_to: day(call.createdAt, 30),
      };
    }],
    ['none, per_page=100', () => ({ per_page: 100 })],
    ['none, a page in the middle', () => ({ page: 30_000 + Math.floor(Math.random() * 1000) })],
    ['none, near the last page', () => ({ page: 60_000 + Math.floor(Math.random() * 6000) })],
  ];
}

async function measure(baseUrl: string, token: string, query: () => Record<string, string | number>, requests: number) {
  const timings: number[] = [];
  let rows = 0;
  // A few unmeasured requests first, so connections and plans are warm as in a running server.
  for (let index = -10; index < requests; index++) {
    const search = new URLSearchParams(Object.entries(query()).map(([key, value]) => [key, String(value)])).toString();
    const started = performance.now();
    const response = await fetch(`${baseUrl}/api/user/calls?${search}`, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
    const body = await response.json() as { total: number };
    if (response.status !== 200) throw new Error(`GET /user/calls?${search}: ${response.status} ${JSON.stringify(body)}`);
    if (index >= 0) {
      timings.push(performance.now() - started);
      rows += body.total;
    }
  }
  timings.sort((a, b) => a - b);
  return { p50: percentile(timings, 50), p95: percentile(timings, 95), max: timings.at(-1) ?? Number.NaN, meanTotal: rows / requests };
}

async function seed(knex: Knex, baseUrl: string, calls: number, others: number): Promise<Seeded & { userIds: number[] }> {
  const users = [];
  for (let index = 0; index <= others; index++) users.push(await createBenchUser(knex, baseUrl));
  await seedCalls(knex, users, calls, Math.ceil(calls / 50));
  const main = users[0] as typeof users[number];
  const samples: Seeded['samples'] = await knex('calls').where('user_id', main.id).whereRaw('random() < 0.001')
    .select('status', 'type', 'client_phone_number', 'assistant_id', 'campaign_id', 'created_at');
  return { userIds: users.map((user) => user.id), token: main.token, assistantIds: main.assistantIds, samples };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: {
    calls: { type: 'string', default: '1000000' },
    others: { type: 'string', default: '5' },
    requests: { type: 'string', default: '200' },
    keep: { type: 'boolean', default: false },
  } });
  const calls = Number(values.calls);
  const requests = Number(values.requests);

  const api = await startBenchApi();
  const { config, knex } = api;

  const seedStarted = performance.now();
  const others = Number(values.others);
  const seeded = await seed(knex, api.url, calls, others);
  // A server that has run for a while has vacuumed and analysed its tables; a fresh seed has not. And it wrote
  // each day's counting rows during that day, next to each other, where one statement's seed scatters them.
  for (const table of ['call_counts', 'call_month_counts', 'call_day_counts']) await knex.raw(`cluster ${table} using ${table}_pkey`);
  await knex.raw('vacuum analyze calls, call_counts, call_month_counts, call_day_counts');
  const seedSeconds = (performance.now() - seedStarted) / 1000;

  const databaseName = config.database.url ? 'PostgreSQL (DATABASE_URL)' : 'embedded PGlite';
  console.log(`${calls} calls of one user (+ ${others} users x ${Math.ceil(calls / 50)}, interleaved), seeded in ${seedSeconds.toFixed(1)} s, ${databaseName}`);
  console.log(`${requests} sequential requests per line, page 1 of 15 unless said; target: p95 <= 50 ms`);
  console.log('filters                        |    p50 ms |    p95 ms |    max ms | mean total');
  for (const [name, query] of combinations(seeded)) {
    const result = await measure(api.url, seeded.token, query, requests);
    console.log([
      name.padEnd(30), result.p50.toFixed(1).padStart(9), result.p95.toFixed(1).padStart(9), result.max.toFixed(1).padStart(9),
      Math.round(result.meanTotal).toString().padStart(10),
    ].join(' | '));
  }

  if (values.keep) console.log(`kept: users ${seeded.userIds.join(', ')} (the first is measured)`);
  else await knex('users').whereIn('id', seeded.userIds).delete();
  await api.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
