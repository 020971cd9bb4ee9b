/**
 * Crash drill for SIP trunk calls:
 *
 *   npm run drill:sip -- [--calls 50] [--parallel 10] [--kill-at 20]
 *
 * Runs the whole platform in this process (api, worker, media and the sip role with its Go gateway; embedded
 * PGlite; the speech and language model fakes of the voice benches) and `--parallel` lanes of calls, each a
 * baresip far end on a loopback address of its own: outbound calls through a trunk of the lane's own to a callee
 * who says two lines and hangs up (most lanes), to one who answers busy, to one who never answers, and inbound
 * calls from a caller to a trunk number with an inbound assistant. When the `--kill-at`-th call starts, a
 * moment later the gateway process is SIGKILLed (the sip role ends the calls it held and starts another). Once
 * `--calls` calls have been made and every one has settled, each is checked: a final status and an end, exactly
 * one ledger entry for a call that cost something and none for one that did not, no call dialed twice (one
 * dial claim per call, and no more calls at the far ends than claims), no concurrent-call slot still held. It
 * prints the tally and every violation, and exits non-zero on any. Never part of `npm test`.
 */
import { randomInt } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import type { Baresip } from '../test/support/baresip.ts';
import { sipOptions } from '../test/support/sip-probe.ts';
import { tally } from './calls/audit.ts';
import { gatewayPid, startSipBench } from './sip/setup.ts';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '50' }, parallel: { type: 'string', default: '10' }, 'kill-at': { type: 'string', default: '20' } } });
const total = Number(values.calls);
const parallel = Number(values.parallel);
const killAt = Number(values['kill-at']);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const sip = await startSipBench({ reply: 'Thank you for calling. Goodbye!', heard: 'Hello, I am calling back.' });
const knex = sip.platform.running.database.knex;
const { apiUrl, token } = sip.platform;
const violations: string[] = [];
let failed = false;

try {
  const callee = await sip.wav('callee', [1500, 'Hello?', 2500, 'Thank you, goodbye.', 800]);
  type Lane = { kind: 'answer' | 'refuse' | 'ring' | 'inbound'; farEnd: Baresip; assistantId?: number };
  const kinds: Lane['kind'][] = Array.from({ length: parallel }, (_, index) => (['refuse', 'ring', 'inbound'] as const)[index - (parallel - 3)] ?? 'answer');
  const lanes: Lane[] = [];
  for (const [index, kind] of kinds.entries()) {
    if (kind === 'inbound') {
      const trunkId = await sip.trunk({ phone_number: '+4930200000', sip_address: '127.0.1.250', allowed_inbound_ips: ['127.0.1.0/24'] });
      await sip.assistant({ type: 'inbound', phone_number_id: trunkId });
      lanes.push({ kind, farEnd: await sip.farEnd({ user: `+4915200000${String(index).padStart(3, '0')}`, audio: callee }) });
      continue;
    }
    const farEnd = await sip.farEnd({ user: '+4915112345678', audio: callee, incoming: kind === 'answer' ? 'answer' : kind });
    const trunkId = await sip.trunk({ phone_number: `+49301000${String(index).padStart(3, '0')}`, sip_address: farEnd.host, allowed_inbound_ips: [farEnd.host] });
    lanes.push({ kind, farEnd, assistantId: await sip.assistant({ phone_number_id: trunkId }) });
  }
  console.log(`${total} SIP calls in ${parallel} lanes (${tally(kinds)}); the gateway SIGKILLed once, as call ${killAt} starts; ` +
    `load average ${os.loadavg()[0]!.toFixed(1)} on ${os.availableParallelism()} cores`);

  let started = 0;
  let killed: { at: number; downMs: number } | undefined;
  const drillStart = Date.now();
  const kill = async () => {
    await sleep(randomInt(3000));
    const pid = gatewayPid();
    if (!pid) throw new Error('the gateway process was not found');
    const at = Date.now();
    process.kill(pid, 'SIGKILL');
    for (;;) {
      await sleep(100);
      const back = gatewayPid();
      if (back && back !== pid && await sipOptions('127.0.0.1', sip.port, 'udp', 500).then(() => true, () => false)) break;
    }
    killed = { at: at - drillStart, downMs: Date.now() - at };
  };
  let killing: Promise<void> | undefined;
  const untilEnded = async (callId: number) => {
    for (const until = Date.now() + 120_000; Date.now() < until; await sleep(250)) {
      if ((await knex('calls').where({ id: callId }).first<{ endedAt: Date | null }>('endedAt'))?.endedAt) return;
    }
  };
  // The calls are shared out between the lanes evenly, so quick outcomes (busy) do not take the others' turns.
  const runLane = async (lane: Lane, index: number) => {
    const quota = Math.floor(total / parallel) + (index < total % parallel ? 1 : 0);
    for (let made = 0; made < quota; made++) {
      started++;
      if (started === killAt) killing = kill();
      if (lane.kind === 'inbound') {
        const closed = lane.farEnd.events.filter((event) => event.type === 'CALL_CLOSED').length;
        await lane.farEnd.command('dial', `sip:+4930200000@127.0.0.1:${sip.port}`);
        await lane.farEnd.waitFor(() => lane.farEnd.events.filter((event) => event.type === 'CALL_CLOSED').length > closed, 90_000).catch(() => undefined);
        continue;
      }
      const answer = await fetch(`${apiUrl}/api/user/make_call`, {
        method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ phone_number: '+4915112345678', assistant_id: lane.assistantId }),
      });
      const body = await answer.json() as { call_id?: number };
      if (answer.status !== 200 || !body.call_id) {
        violations.push(`make_call answered ${answer.status} ${JSON.stringify(body)}`);
        continue;
      }
      await untilEnded(body.call_id);
      // The far end hangs up when its line ends; the next call waits for it to be free.
      await sleep(1500);
    }
  };
  await Promise.all(lanes.map((lane, index) => runLane(lane, index)));
  await killing;
  // Every call settles: its workflow ends it, whatever the gateway did.
  for (const until = Date.now() + 180_000; Date.now() < until; await sleep(500)) {
    if (!(await knex('calls').whereNull('endedAt').first('id'))) break;
  }

  const calls = await knex('calls').select<{ id: number; type: string; status: string; endedAt: Date | null; answeredAt: Date | null; totalCostMicros: number | null }[]>(
    'id', 'type', 'status', 'endedAt', 'answeredAt', 'totalCostMicros',
  );
  const ledger = new Map<string, number>();
  for (const entry of await knex('balance_transactions').where('idempotencyKey', 'like', 'call-%').select<{ idempotencyKey: string }[]>('idempotencyKey')) {
    ledger.set(entry.idempotencyKey, (ledger.get(entry.idempotencyKey) ?? 0) + 1);
  }
  const claims = new Map<number, number>();
  for (const row of await knex('sip_calls').select<{ callId: number }[]>('callId')) claims.set(Number(row.callId), (claims.get(Number(row.callId)) ?? 0) + 1);
  const final = new Set(['completed', 'ended', 'ended_by_customer', 'ended_by_assistant', 'failed', 'busy', 'no-answer']);
  for (const call of calls) {
    const cost = Number(call.totalCostMicros ?? 0);
    const entries = ledger.get(`call-${call.id}`) ?? 0;
    if (!call.endedAt || !final.has(call.status)) violations.push(`call ${call.id} (${call.type}) left ${call.status}${call.endedAt ? '' : ', not ended'}`);
    if (cost > 0 && entries !== 1) violations.push(`call ${call.id} cost ${cost} µ$ with ${entries} ledger entries`);
    if (cost === 0 && entries > 0) violations.push(`call ${call.id} cost nothing but has ${entries} ledger entries`);
    if (!call.answeredAt && cost > 0) violations.push(`call ${call.id} charged without an answer`);
    if ((claims.get(Number(call.id)) ?? 0) > 1) violations.push(`call ${call.id} dialed ${claims.get(Number(call.id))} times`);
  }
  const outbound = calls.filter((call) => call.type === 'outbound').map((call) => Number(call.id));
  const dialClaims = outbound.reduce((sum, id) => sum + (claims.get(id) ?? 0), 0);
  const farEndCalls = lanes.filter((lane) => lane.kind !== 'inbound').reduce((sum, lane) => sum + new Set(lane.farEnd.events.map((event) => event.id).filter(Boolean)).size, 0);
  if (farEndCalls > dialClaims) violations.push(`the far ends saw ${farEndCalls} calls for ${dialClaims} dials`);

  const charged = calls.filter((call) => Number(call.totalCostMicros ?? 0) > 0).length;
  console.log(`${calls.length} calls (${outbound.length} outbound, ${calls.length - outbound.length} inbound) in ${((Date.now() - drillStart) / 1000).toFixed(0)} s: ${tally(calls.map((call) => call.status))}`);
  console.log(`${charged} charged, each with one ledger entry; ${dialClaims} dials claimed, ${farEndCalls} calls at the far ends; ` +
    (killed ? `the gateway was killed ${(killed.at / 1000).toFixed(1)} s in and heard OPTIONS again ${killed.downMs} ms later` : 'the gateway was never killed'));
  if (violations.length > 0) {
    failed = true;
    console.log(`${violations.length} violations:\n  ${violations.join('\n  ')}`);
  } else {
    console.log('no violations: every call final, none billed twice, none dialed twice, no slot held');
  }
  if (!killed) failed = true;
} catch (error) {
  failed = true;
  console.error(error);
} finally {
  await sip.close();
}
process.exit(failed ? 1 : 0);
