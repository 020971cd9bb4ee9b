/**
 * The platform's own overhead per conversation turn: N concurrent widget conversations, each sending M
 * messages through the real HTTP API, against a local OpenAI-compatible server with a fixed latency. For each
 * turn, overhead = the time the client waited − the time the model server spent on that turn's request.
 *
 *   npm run bench:conversation -- [--conversations 1,5,20] [--messages 5] [--turns 200] [--latency 50] [--warmup 50] [--idle 3000] [--cpu-prof DIR]
 *
 * The platform runs as `npm start` runs it (bench/conversation/platform.ts): the api and worker roles on this
 * process's main thread, with the Temporal dev server beside it, over an embedded PGlite in a temporary directory
 * or, with DATABASE_URL, a database of the bench's own on that server. The fake model and the clients run on a
 * worker thread (bench/conversation/load.ts). Each concurrency level runs rounds of fresh conversations until it
 * has about `--turns` turns, so every turn has a chat's usual short history. `--warmup` turns, not counted, go
 * first, as many conversations at once as the largest level: the code is compiled, the database connections that
 * level needs opened, the statements prepared on each (a named statement is parsed and planned once per
 * connection) and the start-up's garbage collected before the figures.
 *
 * Besides the overhead it prints, per turn: the CPU time of the main thread (the API, the worker's activities,
 * the database driver and PGlite), of the whole process less the bench's thread (adding the workflow threads and
 * Temporal's core), of the Temporal server, of the PostgreSQL backends serving the bench, and of the bench
 * itself; and the platform's statements to the database and its calls to Temporal. Each part also spends CPU with no
 * requests at all (the worker's polls, the Temporal server's timers and housekeeping, pools and sweeps): the bench
 * measures that for `--idle` ms (a second after the warm-up; the median half second of the process's threads) and
 * shows each CPU figure also less its part's idle rate over the level's time, which a turn does not cause. On a small machine all of them share the cores, and as N grows turns
 * wait for CPU. `--cpu-prof DIR` profiles the main thread over each level, writes DIR/conversation-<db>-<N>.cpuprofile
 * and prints where its time went (bench/cpu-profile.ts).
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { usdToMicros } from '../src/lib/money.ts';
import { createApiKey } from '../src/resources/api-keys/service.ts';
import { createUser } from '../src/resources/users/service.ts';
import { createTestAssistant } from '../test/support/assistants.ts';
import { apiRequest } from '../test/support/http.ts';
import type { LoadPlan, LoadResult } from './conversation/load.ts';
import { postgresCpuMs, startBenchPlatform, type CpuReading } from './conversation/platform.ts';
import { startCpuProfile, summaryLines } from './cpu-profile.ts';
import { percentile } from './percentile.ts';

const { values } = parseArgs({
  options: {
    'conversations': { type: 'string', default: '1,5,20' },
    'messages': { type: 'string', default: '5' },
    'turns': { type: 'string', default: '200' },
    'latency': { type: 'string', default: '50' },
    'warmup': { type: 'string', default: '50' },
    'idle': { type: 'string', default: '3000' },
    'cpu-prof': { type: 'string' },
  },
});
const levels = values.conversations.split(',').map(Number);
const messages = Number(values.messages);
const latencyMs = Number(values.latency);
if (!levels.every((level) => Number.isInteger(level) && level >= 1)) throw new Error('--conversations: a list of whole numbers, 1 or more');

const load = new Worker(new URL('./conversation/load.ts', import.meta.url), { workerData: { latencyMs } });
const [{ llmUrl }] = await once(load, 'message') as [{ llmUrl: string }];
const platform = await startBenchPlatform(llmUrl);

const perTurn = (ms: number | undefined, turns: number, width: number) => (ms === undefined ? '-' : `${(ms / turns).toFixed(2)} ms`).padStart(width);

/** Runs `turns` turns of `conversations` at once; answers the load thread's figures. */
async function runTurns(level: number, conversations: number, turns: number, assistantUuid: string): Promise<LoadResult> {
  const rounds = Math.max(1, Math.round(turns / (conversations * messages)));
  load.postMessage({ apiUrl: platform.apiUrl, assistantUuid, conversations, messages, rounds, level } satisfies LoadPlan);
  const [result] = await once(load, 'message') as [LoadResult];
  return result;
}

/** CPU milliseconds a second of each part with no requests: timers, polls and housekeeping, which no turn causes. */
interface IdleRates { main: number; process: number; temporalServer: number | undefined; postgres: number | undefined }

/** How long the platform is left alone after the warm-up before its idle rates are read, and the windows they are read in. */
const SETTLE_MS = 1_000;
const IDLE_WINDOW_MS = 500;

/**
 * The idle rates over `ms`, after a second of settling. The process's threads are read in half-second windows and
 * their median taken: a process that has just served turns spends bursts of 30-150 ms now and then for seconds after
 * (on PostgreSQL mostly; their garbage collected, most likely), once taken for 135 ms a second of idle: the turns'
 * cost, not the background's. The Temporal server and
 * PostgreSQL, which the kernel counts in 10 ms ticks, are read over the whole time.
 */
async function idleRates(ms: number): Promise<IdleRates> {
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const first = await platform.cpu();
  const started = performance.now();
  const main: number[] = [];
  const process: number[] = [];
  let before = first;
  for (let left = ms; left > 0; left -= IDLE_WINDOW_MS) {
    const windowStart = performance.now();
    await new Promise((resolve) => setTimeout(resolve, Math.min(left, IDLE_WINDOW_MS)));
    const after = await platform.cpu();
    const seconds = (performance.now() - windowStart) / 1000;
    main.push((after.mainMs - before.mainMs) / seconds);
    // The bench's thread is idle too: what the whole process spends is the platform's.
    process.push((after.processMs - before.processMs) / seconds);
    before = after;
  }
  const seconds = (performance.now() - started) / 1000;
  const median = (rates: number[]) => rates.sort((a, b) => a - b)[Math.floor(rates.length / 2)]!;
  const postgres = postgresCpuMs(first, before);
  return {
    main: median(main),
    process: median(process),
    temporalServer: before.temporalServerMs === undefined ? undefined : (before.temporalServerMs - first.temporalServerMs!) / seconds,
    postgres: postgres === undefined ? undefined : postgres / seconds,
  };
}

/** CPU per turn as measured, and less what the part spends idle over the same time: "2.20 (1.95) ms". */
function cpuCell(ms: number | undefined, idlePerSecond: number | undefined, seconds: number, turns: number, width: number): string {
  if (ms === undefined) return '-'.padStart(width);
  const lessIdle = idlePerSecond === undefined ? '' : ` (${((ms - idlePerSecond * seconds) / turns).toFixed(2)})`;
  return `${(ms / turns).toFixed(2)}${lessIdle} ms`.padStart(width);
}

/** One level: its line of the table, and the profile's summary when asked for. */
async function runLevel(level: number, conversations: number, assistantUuid: string, idle: IdleRates): Promise<string[]> {
  const profiler = values['cpu-prof'] ? await startCpuProfile() : undefined;
  const before: CpuReading = await platform.cpu();
  const started = performance.now();
  const { overheads, totals, elapsedMs, loadCpuMicros } = await runTurns(level, conversations, Number(values.turns), assistantUuid);
  const after = await platform.cpu();
  const seconds = (performance.now() - started) / 1000;
  const profile = profiler ? await profiler.stop(path.join(values['cpu-prof']!, `conversation-${platform.config.database.url ? 'postgres' : 'pglite'}-${conversations}.cpuprofile`)) : undefined;
  overheads.sort((a, b) => a - b);
  totals.sort((a, b) => a - b);
  const turns = overheads.length;
  const loadMs = loadCpuMicros / 1000;
  const calls = Object.entries(after.temporalCalls).map(([name, count]) => [name, count - (before.temporalCalls[name] ?? 0)] as const).filter(([, count]) => count > 0);
  const callCount = calls.reduce((sum, [, count]) => sum + count, 0);
  const line = [
    String(conversations).padStart(10), String(turns).padStart(5), `${percentile(overheads, 50).toFixed(1)} ms`.padStart(12),
    `${percentile(overheads, 95).toFixed(1)} ms`.padStart(12), `${percentile(totals, 50).toFixed(1)} ms`.padStart(8),
    (turns / (elapsedMs / 1000)).toFixed(1).padStart(7),
    cpuCell(after.mainMs - before.mainMs, idle.main, seconds, turns, 21),
    cpuCell(after.processMs - before.processMs - loadMs, idle.process, seconds, turns, 21),
    cpuCell(after.temporalServerMs === undefined ? undefined : after.temporalServerMs - before.temporalServerMs!, idle.temporalServer, seconds, turns, 21),
    cpuCell(postgresCpuMs(before, after), idle.postgres, seconds, turns, 21),
    perTurn(loadMs, turns, 14),
    `${((after.statements - before.statements) / turns).toFixed(2)}, ${((after.statementMs - before.statementMs) / turns).toFixed(2)} ms`.padStart(21),
    `${(((after.earlyRequests.taken ?? 0) - (before.earlyRequests.taken ?? 0)) / turns * 100).toFixed(0)} %`.padStart(11),
    `${(callCount / turns).toFixed(2)}${calls.length ? ` (${calls.map(([name, count]) => `${name} ${count}`).join(', ')})` : ''}`,
  ].join(' | ');
  return [line, ...(profile ? summaryLines(profile, (after.mainMs - before.mainMs) / turns) : [])];
}

try {
  const user = await createUser(platform.knex, { name: 'Bench', email: `bench-${randomUUID()}@example.test`, creditMicros: usdToMicros(1000), creditKind: 'adjustment' });
  const { token } = await createApiKey(platform.knex, user.id, 'bench');
  const { uuid: assistantUuid } = await createTestAssistant({ request: apiRequest(platform.apiUrl) }, { token }, {
    name: 'Bench', timezone: 'UTC', initial_message: 'Hello!', system_prompt: 'You are a concise assistant.',
  });
  console.log(`model latency ${latencyMs} ms, ${messages} messages per conversation, ${platform.databaseName}, api and worker in this process, ` +
    `Temporal ${platform.config.temporal.address ? `at ${platform.config.temporal.address}` : 'dev server'}; load average ${os.loadavg()[0]!.toFixed(1)} on ` +
    `${os.availableParallelism()} cores; target: overhead p50 <= 10 ms`);
  if (Number(values.warmup) > 0) await runTurns(-1, Math.max(...levels), Number(values.warmup), assistantUuid);
  const idle = await idleRates(Number(values.idle));
  const rate = (perSecond: number | undefined) => (perSecond === undefined ? '-' : perSecond.toFixed(1));
  console.log(`idle (${values.idle} ms without requests, a second after the warm-up; the threads' median half second), ms of CPU a second: main thread ${rate(idle.main)}, ` +
    `process ${rate(idle.process)}, Temporal server ${rate(idle.temporalServer)}, PostgreSQL ${rate(idle.postgres)}; ` +
    'each CPU column shows per turn what was measured and, in brackets, that less what the part spends idle in the same time');
  console.log('concurrent | turns | overhead p50 | overhead p95 | turn p50 | turns/s |   main thread CPU/turn |       process CPU/turn | ' +
    '  Temporal server CPU/turn | PostgreSQL CPU/turn | bench CPU/turn | DB statements, time/turn | asked early | Temporal calls/turn');
  for (const [level, conversations] of levels.entries()) {
    for (const line of await runLevel(level, conversations, assistantUuid, idle)) console.log(line);
  }
  console.log(`load average ${os.loadavg()[0]!.toFixed(1)} at the end`);
} finally {
  load.postMessage(null);
  await once(load, 'exit');
  await platform.stop();
}
