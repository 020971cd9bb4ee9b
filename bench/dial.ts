/**
 * Outbound calls at an account's concurrent-call limit, on the embedded stack (Silero VAD, Whisper, Piper; the
 * fake language model answers at once). The whole platform runs in this process (api with the sandbox carrier,
 * worker, media; embedded PGlite, or a database of the bench's own on the PostgreSQL server of DATABASE_URL; the
 * Temporal dev server is a process of its own). One account, on a plan of `--limit` calls at once, with an
 * assistant on a sandbox number, places `--calls` calls with `POST /user/make_call`, one after the other, to
 * scripted callees in the proportions of `--mix` (a person says the `--lines`, one per assistant turn, and hangs
 * up 2 s after the reply to the last). A call refused with 429 waits the answer's Retry-After (or `--retry-ms`)
 * and is placed again, and the calls behind it wait with it.
 *
 * It prints calls dialed per second, the slot utilisation (live calls / limit, sampled every 250 ms from the
 * first dial until every call has ended: mean, max, and by tenth of that time), answer → first audio as the
 * callee measured it (the carrier's answer to the first frame with sound the callee played; the target is
 * 700 ms), the calls' final statuses, the checks of bench/calls/audit.ts, and the slots still held at the end.
 * It exits non-zero when a slot is still held or a check fails.
 *
 *   npm run bench:dial -- [--calls 200] [--limit 20] [--mix person=80,busy=8,no-answer=6,failed=6]
 *     [--retry-ms <ms>] [--lines "Thank you, goodbye."] [--media-max-calls <limit>]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { startPlatform } from '../src/platform.ts';
import { startFakeLlmServer } from '../test/fakes/llm-server.ts';
import { createScratchDatabase } from '../test/support/scratch-database.ts';
import { setUpCallingAccount } from './calls/account.ts';
import { auditCalls, openSlots, settle, tally, type PlacedCall } from './calls/audit.ts';
import { calleeNumber, drawCallees, parseMix, sandboxCarrierApi } from './calls/callees.ts';
import { percentile } from './percentile.ts';
import { benchEnv } from './platform-env.ts';

const { values } = parseArgs({
  options: {
    'calls': { type: 'string', default: '200' },
    'limit': { type: 'string', default: '20' },
    'mix': { type: 'string', default: 'person=80,busy=8,no-answer=6,failed=6' },
    'retry-ms': { type: 'string' },
    'lines': { type: 'string', default: 'Thank you, goodbye.' },
    'media-max-calls': { type: 'string' },
  },
});
const callCount = Number(values.calls);
const limit = Number(values.limit);
const retryMs = values['retry-ms'] === undefined ? undefined : Number(values['retry-ms']);
const mediaMaxCalls = Number(values['media-max-calls'] ?? limit);
const lines = values.lines.split('|');
const callees = drawCallees(parseMix(values.mix), callCount);
const INITIAL_MESSAGE = 'Hello, this is Parley calling.';
const GREETING_TARGET_MS = 700;
const SAMPLE_MS = 250;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const load = () => `load average ${os.loadavg()[0]!.toFixed(1)} on ${os.availableParallelism()} cores`;
const ms = (value: number) => (Number.isFinite(value) ? `${Math.round(value)}` : '–');

const llm = await startFakeLlmServer({ chunkSize: 8 });
llm.respond((request) => (request.tool_choice
  ? { toolCalls: [{ name: 'record_call_evaluation', arguments: { status: true, summary: 'Bench call.' } }] }
  : { reply: 'Thank you for your time. Goodbye!' }));
const scratch = process.env.DATABASE_URL ? await createScratchDatabase(process.env.DATABASE_URL, 'parley_bench') : undefined;
if (process.env.DATABASE_URL && !scratch) throw new Error('The bench creates a database of its own on DATABASE_URL\'s server, and may not.');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-dial-bench-'));
const { env, baseUrl, appKey } = await benchEnv({
  dataDir, llmUrl: llm.baseUrl, extra: { MEDIA_MAX_CALLS: String(mediaMaxCalls), ...(scratch ? { DATABASE_URL: scratch.url } : {}) },
});
const config = loadConfig(env);
const running = await startPlatform({ config, logger: createLogger(config), role: 'all' });
const knex = running.database.knex;
let exitCode = 0;

try {
  const account = await setUpCallingAccount({ knex, baseUrl, maxCallsInParallel: limit, initialMessage: INITIAL_MESSAGE });
  const carrier = sandboxCarrierApi(baseUrl, appKey);
  const due = callees.map((callee, index) => ({ callee, to: calleeNumber(index, callee) }));
  for (const call of due) if (call.callee === 'person') await carrier.script(call.to, lines);
  console.log(`${callCount} calls from one account on a plan of ${limit} at once (media replica admits ${mediaMaxCalls}); ` +
    `${config.database.url ? 'PostgreSQL' : 'embedded PGlite'}, STT ${config.stt.provider}, TTS ${config.tts.provider}; ` +
    `callees ${tally(callees)}; a person says ${JSON.stringify(lines)}; ` +
    `a refused call waits ${retryMs === undefined ? "the 429's Retry-After" : `${retryMs} ms`}; ${load()}`);

  const samples: number[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const next = sleep(SAMPLE_MS);
      samples.push(await openSlots(knex, account.userId));
      await next;
    }
  })();

  const placed: PlacedCall[] = [];
  const refusals = new Map<number, number>();
  const otherAnswers: string[] = [];
  const startedAt = performance.now();
  let lastDialAt = startedAt;
  for (const call of due) {
    for (;;) {
      const answer = await account.request('POST', '/user/make_call', { token: account.token, body: { phone_number: call.to, assistant_id: account.assistantId } });
      if (answer.status === 200) {
        placed.push({ callId: answer.body.call_id as number, to: call.to, callee: call.callee });
        lastDialAt = performance.now();
        break;
      }
      if (answer.status !== 429) {
        otherAnswers.push(`${answer.status} ${answer.text}`);
        break;
      }
      refusals.set(429, (refusals.get(429) ?? 0) + 1);
      await sleep(retryMs ?? Number(answer.headers.get('retry-after') ?? 30) * 1000);
    }
  }
  const dialSeconds = (lastDialAt - startedAt) / 1000;
  const stillLive = await settle(knex, placed.map((call) => call.callId), 5 * 60_000);
  const wallSeconds = (performance.now() - startedAt) / 1000;
  sampling = false;
  await sampler;

  const audited = await auditCalls(knex, carrier, placed);
  // In the order the calls were answered: the first `limit` of them are answered together, before any greeting is kept.
  const answered = audited.flatMap((call) => call.dials.flatMap((dial) => (dial.answeredAt && dial.firstSoundAt ? [{ at: dial.answeredAt, ms: dial.firstSoundAt - dial.answeredAt }] : [])))
    .sort((a, b) => a.at - b.at).map((dial) => dial.ms);
  const greetings = [...answered].sort((a, b) => a - b);
  const spread = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return `p50 ${ms(percentile(sorted, 50))} / p95 ${ms(percentile(sorted, 95))} / max ${ms(sorted.at(-1) ?? Number.NaN)} ms`;
  };
  const answeredSilent = audited.filter((call) => call.dials.some((dial) => dial.answeredAt && !dial.firstSoundAt)).length;
  const utilisation = samples.map((live) => live / limit);
  const tenths = Array.from({ length: 10 }, (_, tenth) => {
    const slice = utilisation.slice(Math.floor((tenth * utilisation.length) / 10), Math.floor(((tenth + 1) * utilisation.length) / 10));
    return slice.length ? `${Math.round((slice.reduce((sum, value) => sum + value, 0) / slice.length) * 100)}` : '–';
  });
  const mean = utilisation.reduce((sum, value) => sum + value, 0) / Math.max(utilisation.length, 1);
  const open = await openSlots(knex, account.userId);
  const violations = audited.flatMap((call) => call.violations.map((violation) => `call ${call.callId} (${call.callee}): ${violation}`));

  console.log(`dialed ${placed.length} calls in ${dialSeconds.toFixed(1)} s: ${(placed.length / dialSeconds).toFixed(2)} calls/s; ` +
    `429s: ${refusals.get(429) ?? 0}; other refusals: ${otherAnswers.length}${otherAnswers.length ? ` (${otherAnswers.slice(0, 3).join('; ')})` : ''}; ` +
    `every call ended ${wallSeconds.toFixed(1)} s after the first dial`);
  console.log(`slot utilisation (live calls / ${limit}, every ${SAMPLE_MS} ms until every call ended): mean ${(mean * 100).toFixed(0)} %, ` +
    `max ${(Math.max(0, ...utilisation) * 100).toFixed(0)} %; by tenth of the time: ${tenths.join(' ')} %`);
  console.log(`answer → first audio at the callee (target ${GREETING_TARGET_MS} ms): p50 ${ms(percentile(greetings, 50))} ms, p95 ${ms(percentile(greetings, 95))} ms, ` +
    `max ${ms(greetings.at(-1) ?? Number.NaN)} ms over ${greetings.length} answered calls; within ${GREETING_TARGET_MS} ms: ${greetings.filter((value) => value <= GREETING_TARGET_MS).length}; ` +
    `answered but never heard the assistant: ${answeredSilent}`);
  console.log(`  the first ${limit} answered: ${spread(answered.slice(0, limit))}; the rest: ${spread(answered.slice(limit))}`);
  console.log(`final statuses: ${tally(audited.map((call) => call.status))}`);
  console.log(`checks: ${violations.length} violations (final status, one ledger entry per charged call, one dial per call); ` +
    `calls still live after 5 min: ${stillLive.length}; open slots after all calls ended: ${open}; ${load()}`);
  for (const violation of violations.slice(0, 10)) console.log(`  ${violation}`);
  if (open !== 0 || violations.length > 0) exitCode = 1;
} finally {
  await running.stop();
  await llm.close();
  await scratch?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
process.exit(exitCode);
