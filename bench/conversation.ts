/**
 * The platform's own overhead per conversation turn: N concurrent widget conversations, each sending M
 * messages through the real HTTP API, against a local OpenAI-compatible server with a fixed latency. For each
 * turn, overhead = the time the client waited − the time the model server spent on that turn's request.
 *
 *   npm run bench:conversation -- [--conversations 1,5,20] [--messages 5] [--turns 200] [--latency 50]
 * Each concurrency level runs rounds of fresh conversations until it has about `--turns` turns, so every turn
 * has a chat's usual short history. Besides the overhead, it prints the CPU time per turn of the server's
 * thread and of the bench's own (clients and fake model): on a small machine the server, PostgreSQL and the
 * bench share the cores, and as N grows turns wait for CPU. Uses DATABASE_URL when set, otherwise an embedded
 * PGlite in a temporary directory.
 *
 * The platform runs on the main thread; the fake model and the clients run on a worker thread, so their work
 * does not queue behind the server's on one event loop. The clients keep their connections alive, as a browser
 * does.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { createApp } from '../src/api/app.ts';
import { createRequestGuards } from '../src/api/guards.ts';
import { loadConfig } from '../src/config.ts';
import { connectPostgres, migrateLatest, openEmbedded, type Database } from '../src/db/database.ts';
import { usdToMicros } from '../src/lib/money.ts';
import { createSecretBox } from '../src/lib/secrets.ts';
import { createLogger } from '../src/logger.ts';
import { createProviders } from '../src/providers/index.ts';
import { apiRoutes } from '../src/roles/api.ts';
import { createApiKey } from '../src/resources/api-keys/service.ts';
import { tokenResolver } from '../src/resources/auth/tokens.ts';
import { createUser } from '../src/resources/users/service.ts';
import { createTemporalClient } from '../src/temporal/client.ts';
import { startFakeLlmServer } from '../test/fakes/llm-server.ts';
import { createTestAssistant } from '../test/support/assistants.ts';
import { apiRequest } from '../test/support/http.ts';
import { listenOnLoopback } from '../test/support/ports.ts';
import { percentile } from './percentile.ts';

interface LoadPlan {
  apiUrl: string;
  assistantUuid: string;
  conversations: number;
  messages: number;
  rounds: number;
  /** Each level's messages are told apart from the others' by this prefix. */
  level: number;
}

interface LoadResult {
  overheads: number[];
  totals: number[];
  elapsedMs: number;
  /** CPU microseconds the worker thread (clients and fake model) spent. */
  loadCpuMicros: number;
}

/** POSTs JSON over a kept-alive connection and resolves with the parsed answer once it has fully arrived. */
function postJson(agent: http.Agent, url: string, body: unknown): Promise<any> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', accept: 'application/json', 'content-length': Buffer.byteLength(payload) },
    }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => { text += chunk; });
      response.on('end', () => {
        if (response.statusCode === 200) resolve(JSON.parse(text));
        else reject(new Error(`POST ${url}: ${response.statusCode} ${text}`));
      });
    });
    request.on('error', reject);
    request.end(payload);
  });
}

/** The worker thread: the fake model, then, for each plan the main thread sends, the conversations. */
async function runLoad(latencyMs: number): Promise<void> {
  const port = parentPort!;
  const llm = await startFakeLlmServer({ latencyMs, chunkSize: 8 });
  llm.respond(() => ({ reply: 'Thank you for your message. Here is a reply of a typical length for a chat turn.' }));
  port.postMessage({ llmUrl: llm.baseUrl });
  for (;;) {
    const [plan] = await once(port, 'message') as [LoadPlan | null];
    if (!plan) break;
    port.postMessage(await runPlan(plan, llm));
  }
  await llm.close();
}

async function runPlan(plan: LoadPlan, llm: Awaited<ReturnType<typeof startFakeLlmServer>>): Promise<LoadResult> {
  const cpuBefore = process.threadCpuUsage();
  const agent = new http.Agent({ keepAlive: true, maxSockets: plan.conversations });
  const overheads: number[] = [];
  const totals: number[] = [];
  const started = performance.now();
  for (let round = 0; round < plan.rounds; round++) {
    await Promise.all(Array.from({ length: plan.conversations }, async (_, c) => {
      const { conversation_id: id } = await postJson(agent, `${plan.apiUrl}/api/conversations`, { assistant_id: plan.assistantUuid, type: 'widget' });
      for (let m = 0; m < plan.messages; m++) {
        const text = `level ${plan.level} round ${round} conversation ${c} message ${m}`;
        const before = performance.now();
        await postJson(agent, `${plan.apiUrl}/api/conversations/${id}/messages`, { message: text });
        const total = performance.now() - before;
        totals.push(total);
        overheads.push(total - (llm.timings.get(text) ?? Number.NaN));
      }
    }));
  }
  const elapsedMs = performance.now() - started;
  agent.destroy();
  const cpu = process.threadCpuUsage(cpuBefore);
  return { overheads, totals, elapsedMs, loadCpuMicros: cpu.user + cpu.system };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      conversations: { type: 'string', default: '1,5,20' },
      messages: { type: 'string', default: '5' },
      turns: { type: 'string', default: '200' },
      latency: { type: 'string', default: '50' },
    },
  });
  const levels = values.conversations.split(',').map(Number);
  const messages = Number(values.messages);
  const latencyMs = Number(values.latency);

  const load = new Worker(new URL(import.meta.url), { workerData: { latencyMs } });
  const [{ llmUrl }] = await once(load, 'message') as [{ llmUrl: string }];

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-'));
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', LLM_BASE_URL: llmUrl, LLM_API_KEY: 'bench', RATE_LIMIT_PER_MINUTE: '1000000' });
  const database: Database = config.database.url ? await connectPostgres(config.database.url, config.database.poolMax) : await openEmbedded({ dataDir });
  await migrateLatest(database.knex);
  const temporal = createTemporalClient(config, config.temporal.address ?? '127.0.0.1:7233');
  const logger = createLogger(config);
  const providers = createProviders(config, logger, { secrets: createSecretBox(randomBytes(32)) });
  const guards = createRequestGuards({ knex: database.knex, config, resolveToken: (clock) => tokenResolver(database.knex, clock) });
  const routes = apiRoutes({ config, logger, knex: database.knex, temporal, providers, guards });
  const { app } = createApp({ config, logger, routes, guards });
  const listening = await listenOnLoopback(http.createServer(app.callback()));

  const user = await createUser(database.knex, { name: 'Bench', email: `bench-${randomUUID()}@example.test`, creditMicros: usdToMicros(1000), creditKind: 'adjustment' });
  const { token } = await createApiKey(database.knex, user.id, 'bench');
  const { uuid: assistantUuid } = await createTestAssistant({ request: apiRequest(listening.url) }, { token }, {
    name: 'Bench', timezone: 'UTC', initial_message: 'Hello!', system_prompt: 'You are a concise assistant.',
  });

  const databaseName = config.database.url ? 'PostgreSQL (DATABASE_URL)' : 'embedded PGlite';
  console.log(`model latency ${latencyMs} ms, ${messages} messages per conversation, ${databaseName}; target: overhead p50 <= 10 ms`);
  console.log('concurrent | turns | overhead p50 | overhead p95 | turn p50 | overhead/turn | turns/s | server CPU/turn | bench CPU/turn');
  for (const [level, conversations] of levels.entries()) {
    const rounds = Math.max(1, Math.round(Number(values.turns) / (conversations * messages)));
    const cpuBefore = process.threadCpuUsage();
    load.postMessage({ apiUrl: listening.url, assistantUuid, conversations, messages, rounds, level } satisfies LoadPlan);
    const [{ overheads, totals, elapsedMs, loadCpuMicros }] = await once(load, 'message') as [LoadResult];
    const cpu = process.threadCpuUsage(cpuBefore);
    overheads.sort((a, b) => a - b);
    totals.sort((a, b) => a - b);
    const turns = overheads.length;
    const p50 = percentile(overheads, 50);
    console.log([
      String(conversations).padStart(10), String(turns).padStart(5), `${p50.toFixed(1)} ms`.padStart(12),
      `${percentile(overheads, 95).toFixed(1)} ms`.padStart(12), `${percentile(totals, 50).toFixed(1)} ms`.padStart(8),
      (p50 / percentile(totals, 50)).toFixed(3).padStart(13), (turns / (elapsedMs / 1000)).toFixed(1).padStart(7),
      `${((cpu.user + cpu.system) / 1000 / turns).toFixed(2)} ms`.padStart(15),
      `${(loadCpuMicros / 1000 / turns).toFixed(2)} ms`.padStart(14),
    ].join(' | '));
  }
  load.postMessage(null);
  await once(load, 'exit');

  await listening.close();
  await temporal.close();
  await database.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

const run = isMainThread ? main() : runLoad((workerData as { latencyMs: number }).latencyMs);
run.catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
