/**
 * Webhook delivery throughput: `--events` post-call webhooks (10,000 by default) to a local receiver that answers
 * 200 after 50 ms (allowed through FETCH_ALLOW_HOSTS), with the whole platform in this process as in
 * bench/dial.ts (embedded PGlite, or a database of the bench's own on the server of DATABASE_URL) and the
 * Temporal dev server it starts.
 *
 * What is real and what is shortcut is said in bench/webhooks/post-call.ts: the calls' rows are inserted as a
 * finished call leaves them (no call workflow, no media), their webhooks queued by the worker's own
 * `queuePostCallWebhook`, which makes the first attempt, and an event that needs retries delivered by its own
 * `webhookDeliveryWorkflow`, started through the Temporal client as the API starts it, on the production retry
 * policy. Calls end `--concurrency` at a time as fast as
 * they can be queued (a burst, the worst case for the delay), or at `--rate` a second.
 *
 * It prints deliveries per second (events received ÷ the time from the first call's end to the last arrival),
 * p50/p95/max of the delay from a call's `ended_at` to its event reaching the receiver, attempts per delivery,
 * the delivery log's statuses, the platform process's CPU time and peak memory and the Temporal server's, and
 * exits non-zero when an event is lost (none arrived for 3 minutes), arrives twice, or is not signed with the
 * account's secret. It waits as long as events keep arriving: on a loaded machine a large run is slow, not lost
 * (it prints its progress every 30 s). Never part of `npm test`.
 *
 *   npm run bench:webhooks -- [--events 10000] [--concurrency 16] [--rate 0]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { createSafeFetch } from '../src/lib/safe-fetch.ts';
import { createSecretBox, decodeAppKey } from '../src/lib/secrets.ts';
import { createLogger } from '../src/logger.ts';
import { startPlatform } from '../src/platform.ts';
import { startFakeLlmServer } from '../test/fakes/llm-server.ts';
import { createScratchDatabase } from '../test/support/scratch-database.ts';
import { benchEnv } from './platform-env.ts';
import { auditFailed, auditLines, auditWebhooks } from './webhooks/audit.ts';
import { postCallProducer, setUpWebhookAccount, type EndedCall } from './webhooks/post-call.ts';
import { startBenchReceiver } from './webhooks/receiver.ts';
import { processUsage, selfUsage } from './webhooks/usage.ts';

const { values } = parseArgs({ options: {
  'events': { type: 'string', default: '10000' },
  'concurrency': { type: 'string', default: '16' },
  'rate': { type: 'string', default: '0' },
} });
const eventCount = Number(values.events);
const concurrency = Number(values.concurrency);
const rate = Number(values.rate);
if (!(Number.isInteger(eventCount) && eventCount >= 1 && eventCount <= 100_000)) throw new Error('--events: 1 to 100000');
if (!(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= 200)) throw new Error('--concurrency: 1 to 200 calls queued at once');
if (!(rate >= 0)) throw new Error('--rate: calls ending a second, or 0 for as fast as they can be queued');
const ANSWER_AFTER_MS = 50;
const STALL_MS = 3 * 60_000;
const load = () => `load average ${os.loadavg()[0]!.toFixed(1)} on ${os.availableParallelism()} cores`;

const llm = await startFakeLlmServer();
const scratch = process.env.DATABASE_URL ? await createScratchDatabase(process.env.DATABASE_URL, 'parley_bench') : undefined;
if (process.env.DATABASE_URL && !scratch) throw new Error('The bench creates a database of its own on DATABASE_URL\'s server, and may not.');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-webhook-bench-'));
const { env, baseUrl, appKey } = await benchEnv({
  dataDir, llmUrl: llm.baseUrl, extra: { FETCH_ALLOW_HOSTS: '127.0.0.1', ...(scratch ? { DATABASE_URL: scratch.url } : {}) },
});
const config = loadConfig(env);
const logger = createLogger(config);
const running = await startPlatform({ config, logger, role: 'all' });
const knex = running.database.knex;
let secret = '';
const receiver = await startBenchReceiver({ answerAfterMs: ANSWER_AFTER_MS, secret: () => secret });
let exitCode = 0;

try {
  const account = await setUpWebhookAccount(knex, baseUrl, receiver.url);
  secret = account.secret;
  const produce = postCallProducer({
    knex, logger, config, temporal: running.temporal,
    providers: { fetch: createSafeFetch(config.fetch), secrets: createSecretBox(decodeAppKey(appKey)!) },
  }, account);
  const temporalPid = Number(fs.readFileSync(path.join(dataDir, 'temporal.pid'), 'utf8'));
  const temporalBefore = processUsage(temporalPid);
  const selfBefore = selfUsage();
  console.log(`${eventCount} post-call webhooks to a receiver answering 200 after ${ANSWER_AFTER_MS} ms; calls end ` +
    `${rate > 0 ? `${rate} a second` : `as fast as ${concurrency} at a time can be queued`}; ` +
    `${config.database.url ? 'PostgreSQL' : 'embedded PGlite'}, Temporal dev server; production retry policy; ${load()}`);

  const produced: EndedCall[] = [];
  const startedAt = Date.now();
  let next = 0;
  const progress = setInterval(() => {
    console.log(`  ${((Date.now() - startedAt) / 1000).toFixed(0)} s: ${produced.length} calls ended and queued, ${receiver.arrivals.size} events received; ${load()}`);
  }, 30_000);
  await Promise.all(Array.from({ length: Math.min(concurrency, eventCount) }, async () => {
    for (let index = next++; index < eventCount; index = next++) {
      if (rate > 0) await new Promise((resolve) => setTimeout(resolve, Math.max(startedAt + (index * 1000) / rate - Date.now(), 0)));
      produced.push(await produce());
    }
  }));
  const queuedMs = Date.now() - startedAt;
  console.log(`queued ${produced.length} in ${(queuedMs / 1000).toFixed(1)} s (${(produced.length / (queuedMs / 1000)).toFixed(0)} a second)`);
  // However slow a loaded machine makes it, the bench waits while events keep arriving; none for STALL_MS (longer
  // than the policy's first two waits) means the rest are lost.
  let arrived = false;
  for (let seen = -1; !arrived && receiver.arrivals.size > seen;) {
    seen = receiver.arrivals.size;
    arrived = await receiver.distinct(eventCount, STALL_MS);
  }
  // Time for a second copy of any event to show up.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  clearInterval(progress);
  const self = selfUsage();
  const temporal = processUsage(temporalPid);

  const audit = await auditWebhooks(knex, produced, receiver.arrivals);
  const firstEnd = Math.min(...produced.map((call) => call.endedAt));
  const spanS = (audit.lastArrival - firstEnd) / 1000;
  if (!arrived) console.log(`NOT every event arrived: none arrived for ${STALL_MS / 1000} s`);
  console.log(`deliveries per second: ${(audit.receivedOnce / spanS).toFixed(1)} (${audit.receivedOnce} events from the first call's end to the last arrival, ${spanS.toFixed(1)} s)`);
  for (const line of auditLines(audit)) console.log(line);
  console.log(`platform process (api, worker${config.database.url ? '' : ', PGlite'}): CPU ${((self.cpuMs - selfBefore.cpuMs) / 1000).toFixed(0)} s, ` +
    `peak RSS ${(self.peakRssBytes / 2 ** 20).toFixed(0)} MB; Temporal dev server: CPU ${((temporal.cpuMs - temporalBefore.cpuMs) / 1000).toFixed(0)} s, ` +
    `peak RSS ${(temporal.peakRssBytes / 2 ** 20).toFixed(0)} MB; ${receiver.malformed} malformed requests; ${load()}`);
  if (!arrived || auditFailed(audit) || receiver.malformed > 0) exitCode = 1;
} finally {
  await receiver.close();
  await running.stop();
  await llm.close();
  await scratch?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
process.exit(exitCode);
