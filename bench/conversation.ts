/**
 * The platform's own overhead per conversation turn: N concurrent widget conversations, each sending M
 * messages through the real HTTP API, against a local OpenAI-compatible server with a fixed latency. For each
 * turn, overhead = the time the client waited − the time the model server spent on that turn's request.
 *
 *   npm run bench:conversation -- [--conversations 20] [--messages 5] [--latency 50]
 * Uses DATABASE_URL when set, otherwise an embedded PGlite in a temporary directory.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createApp } from '../src/api/app.ts';
import { loadConfig } from '../src/config.ts';
import { connectPostgres, migrateLatest, openEmbedded, type Database } from '../src/db/database.ts';
import { usdToMicros } from '../src/lib/money.ts';
import { createLogger } from '../src/logger.ts';
import { createApiKey } from '../src/resources/api-keys/service.ts';
import { createUser } from '../src/resources/users/service.ts';
import { createTemporalClient } from '../src/temporal/client.ts';
import { startFakeLlmServer } from '../test/fakes/llm-server.ts';
import { createTestAssistant } from '../test/support/assistants.ts';
import { apiRequest } from '../test/support/http.ts';
import { listenOnLoopback } from '../test/support/ports.ts';

const { values } = parseArgs({
  options: {
    conversations: { type: 'string', default: '20' },
    messages: { type: 'string', default: '5' },
    latency: { type: 'string', default: '50' },
  },
});
const conversations = Number(values.conversations);
const messagesEach = Number(values.messages);
const latencyMs = Number(values.latency);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function main(): Promise<void> {
  const llm = await startFakeLlmServer({ latencyMs, chunkSize: 8 });
  llm.respond(() => ({ reply: 'Thank you for your message. Here is a reply of a typical length for a chat turn.' }));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-'));
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'bench', RATE_LIMIT_PER_MINUTE: '1000000' });
  const database: Database = config.database.url ? await connectPostgres(config.database.url, config.database.poolMax) : await openEmbedded({ dataDir });
  await migrateLatest(database.knex);
  const temporal = createTemporalClient(config, config.temporal.address ?? '127.0.0.1:7233');
  const { app } = createApp({ config, logger: createLogger(config), knex: database.knex, temporal, appKey: randomBytes(32) });
  const server = http.createServer(app.callback());
  const listening = await listenOnLoopback(server);

  const request = apiRequest(listening.url);
  const call = async (path: string, body: unknown) => {
    const response = await request('POST', path, { body });
    if (response.status !== 200) throw new Error(`POST ${path}: ${response.status} ${response.text}`);
    return response.body;
  };

  const user = await createUser(database.knex, { name: 'Bench', email: `bench-${randomUUID()}@example.test`, creditMicros: usdToMicros(1000), creditKind: 'adjustment' });
  const { token } = await createApiKey(database.knex, user.id, 'bench');
  const { uuid: assistantUuid } = await createTestAssistant({ request }, { token }, {
    name: 'Bench', timezone: 'UTC', initial_message: 'Hello!', system_prompt: 'You are a concise assistant.',
  });

  const overheads: number[] = [];
  const totals: number[] = [];
  const started = performance.now();
  await Promise.all(Array.from({ length: conversations }, async (_, c) => {
    const { conversation_id: id } = await call('/conversations', { assistant_id: assistantUuid, type: 'widget' });
    for (let m = 0; m < messagesEach; m++) {
      const text = `conversation ${c} message ${m}`;
      const before = performance.now();
      await call(`/conversations/${id}/messages`, { message: text });
      const total = performance.now() - before;
      totals.push(total);
      overheads.push(total - (llm.timings.get(text) ?? Number.NaN));
    }
  }));
  const elapsed = performance.now() - started;

  overheads.sort((a, b) => a - b);
  totals.sort((a, b) => a - b);
  const turns = conversations * messagesEach;
  const database_ = config.database.url ? 'PostgreSQL (DATABASE_URL)' : 'embedded PGlite';
  console.log(`conversation turns: ${turns} (${conversations} concurrent conversations × ${messagesEach} messages), model latency ${latencyMs} ms, ${database_}`);
  console.log(`turn time         p50 ${percentile(totals, 50).toFixed(1)} ms   p95 ${percentile(totals, 95).toFixed(1)} ms`);
  console.log(`platform overhead p50 ${percentile(overheads, 50).toFixed(1)} ms   p95 ${percentile(overheads, 95).toFixed(1)} ms   (target: p50 <= 10 ms)`);
  console.log(`overhead / turn time at p50: ${(percentile(overheads, 50) / percentile(totals, 50)).toFixed(3)}`);
  console.log(`throughput: ${(turns / (elapsed / 1000)).toFixed(1)} turns/s`);

  await listening.close();
  await temporal.close();
  await database.close();
  await llm.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
