/**
 * Crash drill of live calls on the embedded default:
 *
 *   npm run drill:crash -- [--web 1] [--phone 1] [--up-ms 6000] [--down-ms 1000] [--rounds 1]
 *
 * Runs Parley as `npm start` does (bench/calls/parley-process.ts: one process group, the embedded PGlite, or a
 * database of its own on DATABASE_URL's server, the Temporal dev server, the embedded speech stack, the fake
 * language model in this process). It places `--web` web calls (a Media Streams caller of this process that
 * stays on the line) and `--phone` phone calls (sandbox callees that keep talking), waits until they have been up
 * `--up-ms`, SIGKILLs the whole process group, waits `--down-ms` and starts Parley again on the same data. Then it
 * follows each call to its final status and prints, per call: how long it was up when the process died, the
 * seconds from the restart (and from the kill) to its final status, its status and end reason, the seconds billed
 * against those it was up, its cost and its ledger entries. It exits non-zero when a call is not final within
 * two minutes of the restart, is billed for more than it was up (plus a second of rounding), or has other than one
 * ledger entry. Never part of `npm test`.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { startFakeLlmServer } from '../test/fakes/llm-server.ts';
import { connectMediaStream, L16_16K, type MediaStreamClient } from '../test/support/media-stream-client.ts';
import { calleeNumber, sandboxCarrierApi } from './calls/callees.ts';
import { createCallingAccount, deployParley, waitFor } from './calls/parley-process.ts';

const { values } = parseArgs({
  options: {
    'web': { type: 'string', default: '1' }, 'phone': { type: 'string', default: '1' },
    'up-ms': { type: 'string', default: '6000' }, 'down-ms': { type: 'string', default: '1000' }, 'rounds': { type: 'string', default: '1' },
  },
});
const [webCalls, phoneCalls, upMs, downMs, rounds] = [values.web, values.phone, values['up-ms'], values['down-ms'], values.rounds].map(Number) as [number, number, number, number, number];
const LIVE = new Set(['initiated', 'ringing', 'in-progress']);
/** What a phone callee says, one line after each of the assistant's turns: enough to outlast the drill. */
const CHATTY = Array.from({ length: 12 }, (_, index) => `This is my answer number ${index + 1}, and I would like to hear more about it please.`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms: number) => (ms / 1000).toFixed(1);

interface DrilledCall {
  id: number;
  kind: 'web' | 'phone';
  /** When the call was answered, in ms since the epoch: the carrier's answer, or the web caller's first audio. */
  answeredAt: number;
  caller?: MediaStreamClient;
}

const llm = await startFakeLlmServer({ chunkSize: 8 });
llm.respond((request) => (request.tool_choice
  ? { toolCalls: [{ name: 'record_call_evaluation', arguments: { status: true, summary: 'Drill call.' } }] }
  : { reply: 'I see. Could you tell me a little more about that, please?' }));
const parley = await deployParley({ name: 'crash', llmUrl: llm.baseUrl });
let failed = false;

try {
  const account = createCallingAccount(parley, { balanceUsd: 50 });
  await parley.start();
  const web = webCalls > 0 ? await account.assistant() : undefined;
  const phone = phoneCalls > 0 ? await account.assistant(true) : undefined;
  const carrier = sandboxCarrierApi(parley.baseUrl, parley.appKey);
  const { request } = parley;
  const { token } = account;
  console.log(`${rounds} round(s) of ${webCalls} web and ${phoneCalls} phone call(s), SIGKILLed ${seconds(upMs)} s after their answer, down ${seconds(downMs)} s; ` +
    `${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}; load average ${os.loadavg()[0]!.toFixed(1)} on ${os.availableParallelism()} cores`);
  console.log('round | call | kind  | up at kill (s) | kill → final (s) | restart → final (s) | ready → final (s) | status | end reason | billed (s) | cost (USD) | ledger entries');
  let sequence = 0;
  for (let round = 1; round <= rounds; round++) {
    const calls: DrilledCall[] = [];
    for (let index = 0; index < webCalls; index++) {
      const created = await request('POST', '/user/web-calls', { token, body: { assistant_id: web!.id } });
      if (created.status !== 201) throw new Error(`web call: HTTP ${created.status} ${created.text}`);
      const caller = await connectMediaStream(created.body.data.websocket_url as string, L16_16K);
      caller.start();
      await caller.waitFor(() => caller.received.some((message) => message.event === 'media'), 30_000, 'the greeting');
      calls.push({ id: created.body.data.call_id as number, kind: 'web', answeredAt: Date.now(), caller });
    }
    for (let index = 0; index < phoneCalls; index++) {
      const to = calleeNumber(sequence++, 'person');
      await carrier.script(to, CHATTY);
      const placed = await request('POST', '/user/make_call', { token, body: { phone_number: to, assistant_id: phone!.id } });
      if (placed.status !== 200) throw new Error(`make_call: HTTP ${placed.status} ${placed.text}`);
      const answeredAt = await waitFor(async () => (await carrier.callsTo(to))[0]?.answeredAt, 60_000);
      if (answeredAt === undefined) throw new Error(`the phone call to ${to} was not answered`);
      calls.push({ id: placed.body.call_id as number, kind: 'phone', answeredAt });
    }
    await sleep(Math.max(Math.min(...calls.map((call) => call.answeredAt)) + upMs - Date.now(), 0));

    const killedAt = Date.now();
    await parley.kill();
    await sleep(downMs);
    const restartedAt = Date.now();
    await parley.start();
    const readyAt = Date.now();

    const finals = await Promise.all(calls.map(async (call) => {
      const shown = await waitFor(async () => {
        const read = await request('GET', `/user/calls/${call.id}`, { token });
        const body = read.body as { status: string; end_reason: string | null; duration: number; total_cost: number };
        return read.status === 200 && !LIVE.has(body.status) ? { ...body, at: Date.now() } : undefined;
      }, 120_000, 250);
      return { call, shown };
    }));
    const ledger = ((await request('GET', '/user/balance/transactions?per_page=100', { token })).body as { data: { reference: string | null }[] }).data;
    for (const { call, shown } of finals) {
      const up = (killedAt - call.answeredAt) / 1000;
      const entries = ledger.filter((entry) => entry.reference === `call:${call.id}`).length;
      const billed = Number(shown?.duration ?? Number.NaN);
      const problems = [
        ...(shown ? [] : ['not final within 120 s of the restart']),
        ...(billed > up + 1 ? [`billed ${billed} s for ${up.toFixed(1)} s up`] : []),
        ...(entries === 1 ? [] : [`${entries} ledger entries`]),
      ];
      if (problems.length > 0) failed = true;
      const after = (from: number) => (shown ? seconds(shown.at - from) : '–');
      console.log(`${round} | ${call.id} | ${call.kind.padEnd(5)} | ${up.toFixed(1)} | ${after(killedAt)} | ${after(restartedAt)} | ${after(readyAt)} | ${shown?.status ?? 'live'} | ${shown?.end_reason ?? '–'} | ${billed} | ` +
        `${shown?.total_cost ?? '–'} | ${entries}${problems.length ? `  ← ${problems.join('; ')}` : ''}`);
    }
    console.log(`round ${round}: Parley was ready ${seconds(readyAt - restartedAt)} s after its restart (down ${seconds(downMs)} s); load average ${os.loadavg()[0]!.toFixed(1)}`);
    for (const call of calls) call.caller?.close();
  }
} finally {
  await parley.close();
  await llm.close();
}
process.exit(failed ? 1 : 0);
