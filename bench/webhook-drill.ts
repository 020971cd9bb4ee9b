/**
 * Receiver-down drill for webhooks:
 *
 *   DATABASE_URL=$(bash scripts/setup-postgres.sh) npm run drill:webhooks -- [--outage 10m] [--rate 0.5] [--down both]
 *
 * Runs the Temporal dev server, the api role and the worker role as processes of their own on a database of the
 * drill's own (bench/cluster.ts), and a customer's receiver in this process. The receiver goes down for
 * `--outage` (10 minutes by default, as issue 18 asks; `60s` for a quick run): `--down refused` closes its port,
 * `503` answers every request 503, `both` (the default) refuses connections for the first half and answers 503
 * for the second. Meanwhile calls end at `--rate` a second and their post-call webhooks are queued (as
 * bench/webhooks/post-call.ts says: call rows inserted as a finished call leaves them, the webhook queued by the
 * worker's own activity, its delivery workflow started through the Temporal client), and halfway through the
 * outage the worker is SIGKILLed and started again 2 s later. Then the receiver comes back, and the drill waits
 * for every event.
 *
 * The deliveries keep the production retry policy (30 s, 2 min, 10 min, 1 h, 6 h): it is a workflow input that
 * production never sets, not a setting, so the drill does not shorten it. No event is produced after the return,
 * so the first to arrive is the first whose scheduled retry falls after it; that success wakes the others waiting
 * for the receiver (`retryNow`, a batch at a time), so the rest follow within seconds rather than at their own next
 * attempts. The drill prints when the first retry was due, the first and last arrivals, and, as the worst case had
 * nothing woken them, the bound the policy gives from when each event was produced.
 *
 * It prints the events produced, received exactly once, duplicated and lost, those times, and attempts per
 * delivery; it exits non-zero when an event is lost or duplicated, arrives unsigned, or has not arrived a few
 * minutes past the policy's bound. Never part of `npm test`.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { connectPostgres } from '../src/db/database.ts';
import { createSafeFetch } from '../src/lib/safe-fetch.ts';
import { createSecretBox, decodeAppKey } from '../src/lib/secrets.ts';
import { createLogger } from '../src/logger.ts';
import { createTemporalClient } from '../src/temporal/client.ts';
import { DEFAULT_DELIVERY_POLICY } from '../src/webhooks/policy.ts';
import { startFakeLlmServer } from '../test/fakes/llm-server.ts';
import { startCluster } from './cluster.ts';
import { auditFailed, auditLines, auditWebhooks } from './webhooks/audit.ts';
import { firstAttemptAfter } from './webhooks/schedule.ts';
import { postCallProducer, setUpWebhookAccount, type EndedCall } from './webhooks/post-call.ts';
import { startBenchReceiver } from './webhooks/receiver.ts';

const { values } = parseArgs({ options: {
  'outage': { type: 'string', default: '10m' },
  'rate': { type: 'string', default: '0.5' },
  'down': { type: 'string', default: 'both' },
} });
const outageMs = duration(values.outage);
const rate = Number(values.rate);
const down = values.down;
if (!(outageMs >= 10_000 && outageMs <= 60 * 60_000)) throw new Error('--outage: 10s to 60m, as 90s, 2m or 600000 (ms)');
if (!(rate > 0 && rate <= 20)) throw new Error('--rate: calls ending a second while the receiver is down, above 0 and at most 20');
if (down !== 'refused' && down !== '503' && down !== 'both') throw new Error('--down: refused, 503 or both');
// Past the policy's bound: the worker's restart, an activity lost with the killed worker (its 1-minute timeout), a loaded machine.
const SLACK_MS = 3 * 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const load = () => `load average ${os.loadavg()[0]!.toFixed(1)} on ${os.availableParallelism()} cores`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function duration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (!match) return Number.NaN;
  return Number(match[1]) * { ms: 1, s: 1000, m: 60_000 }[(match[2] ?? 'ms') as 'ms' | 's' | 'm'];
}

const llm = await startFakeLlmServer();
let secret = '';
const receiver = await startBenchReceiver({ answerAfterMs: 50, secret: () => secret });
const cluster = await startCluster({
  name: 'webhook drill',
  roles: ['api', 'worker'],
  env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'drill', FETCH_ALLOW_HOSTS: '127.0.0.1', DATABASE_POOL_MAX: '5' },
});
const config = loadConfig({ ...process.env, ...cluster.env });
const logger = createLogger(config);
const database = await connectPostgres(cluster.databaseUrl, 5);
const temporal = createTemporalClient(config, cluster.env.TEMPORAL_ADDRESS!);
let failed: boolean;

try {
  const { knex } = database;
  const account = await setUpWebhookAccount(knex, cluster.baseUrl, receiver.url);
  secret = account.secret;
  const produce = postCallProducer({
    knex, logger, config, temporal,
    providers: { fetch: createSafeFetch(config.fetch), secrets: createSecretBox(decodeAppKey(cluster.env.APP_KEY!)!) },
  }, account);
  console.log(`receiver down for ${seconds(outageMs)} (${down === 'both' ? 'connections refused, then 503' : down === 'refused' ? 'connections refused' : '503'}); ` +
    `calls end ${rate} a second meanwhile; the worker SIGKILLed halfway and started again 2 s later; production retry policy ` +
    `(${DEFAULT_DELIVERY_POLICY.delaysMs.map((ms) => seconds(ms)).join(', ')}); ${load()}`);

  const downAt = Date.now();
  await receiver.setState(down === '503' ? 'unavailable' : 'refusing');
  const produced: EndedCall[] = [];
  const producing = (async () => {
    for (let index = 0; (index * 1000) / rate < outageMs; index++) {
      await sleep(Math.max(downAt + (index * 1000) / rate - Date.now(), 0));
      produced.push(await produce());
    }
  })();
  const outage = (async () => {
    await sleep(outageMs / 2);
    if (down === 'both') await receiver.setState('unavailable');
    const killedAt = Date.now();
    await cluster.crash('worker', 2000);
    console.log(`  worker SIGKILLed ${seconds(killedAt - downAt)} into the outage and started again 2 s later; ` +
      `${produced.length} events produced so far`);
    await sleep(Math.max(downAt + outageMs - Date.now(), 0));
  })();
  await Promise.all([producing, outage]);
  await receiver.setState('up');
  const backAt = Date.now();
  console.log(`  receiver back after ${seconds(backAt - downAt)}; ${produced.length} events produced while it was down, ${receiver.refusedWith503} requests answered 503; ${load()}`);

  // The first attempt is made as the call ends, so each event's next attempts are the policy's waits after its end.
  const nextAttempts = produced.map((call) => firstAttemptAfter(DEFAULT_DELIVERY_POLICY, call.endedAt, backAt) ?? Number.POSITIVE_INFINITY);
  const firstDueMs = Math.min(...nextAttempts) - backAt;
  const boundMs = Math.max(...nextAttempts) - backAt;
  const progress = setInterval(() => {
    console.log(`  ${seconds(Date.now() - backAt)} after the return: ${receiver.arrivals.size} of ${produced.length} events received; ${load()}`);
  }, 30_000);
  const arrived = await receiver.distinct(produced.length, boundMs + SLACK_MS);
  const arrivals = [...receiver.arrivals.values()].flat().map((copy) => copy.at);
  const [firstArrivalMs, lastArrivalMs] = [Math.min(...arrivals) - backAt, Math.max(...arrivals) - backAt];
  // Time for a second copy of any event to show up.
  await sleep(5000);
  clearInterval(progress);

  const audit = await auditWebhooks(knex, produced, receiver.arrivals);
  if (!arrived) console.log(`NOT every event arrived within the policy's bound and ${seconds(SLACK_MS)} more`);
  console.log(`receiver back → first delivery: ${seconds(firstArrivalMs)} (the first retry due: ${seconds(firstDueMs)}); ` +
    `last delivery: ${seconds(lastArrivalMs)}, ${seconds(lastArrivalMs - firstArrivalMs)} after the first ` +
    `(the policy's bound for these events, had nothing woken them: ${seconds(boundMs)})`);
  for (const line of auditLines(audit)) console.log(line);
  console.log(`${receiver.malformed} malformed requests; ${load()}`);
  failed = !arrived || auditFailed(audit) || receiver.malformed > 0;
} finally {
  await temporal.close();
  await database.close();
  await cluster.close();
  await receiver.close();
  await llm.close();
}
process.exit(failed ? 1 : 0);
