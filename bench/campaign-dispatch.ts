/**
 * The campaign dispatcher's throughput: one campaign of `--leads` leads at `max_calls_in_parallel` `--parallel`
 * (MEDIA_MAX_CALLS admits as many, and so does the account's plan beside the share it keeps for inbound calls), imported as CSV and started with update-status. The
 * whole platform runs in this process as in bench/dial.ts (embedded PGlite, or a database of the bench's own on
 * the server of DATABASE_URL), with speech through the fake hosted providers (Deepgram, OpenAI speech) and the
 * fake language model, so speech costs next to nothing. The sandbox carrier runs at its instant pace
 * (SANDBOX_CARRIER_PACE=instant) and every lead is its silent callee, 98–99, which then answers at the dial and
 * hangs up `--hold` seconds later without a word (SANDBOX_SILENT_CALLEE_SECONDS): each lead is `completed` with
 * one call that is mostly Parley's own work (its workflow, the dial, the media stream, the bill), so the figures
 * measure the dispatcher, not a conversation. The default hold, 20 s, shows how full the dispatcher keeps its
 * places when calls last as calls do; a hold of 1 s makes every call mostly setup and teardown, so the machine's
 * CPU per call bounds the figures instead (2 cores hold 50 calls only as long as they can set up 50 more).
 *
 * It prints leads per minute, the slot utilisation (calls in flight, time-averaged from the first call's record
 * to the last call's end, ÷ `--parallel`; a call holds its slot from its record's creation to its end), the delay
 * from a slot freeing (a call's end) to the next dial (the next call record created), the most calls live at
 * once, the leads' statuses, the CPU time per call of the platform's process and of the Temporal dev server, and the
 * workflow tasks and history events of the last calls' workflows. It exits non-zero when more than `--parallel` calls were live at once, a lead
 * is not in a final status, or a lead has more calls than attempts.
 *
 *   npm run bench:campaign-dispatch -- [--leads 10000] [--parallel 50] [--hold 20]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import proto from '@temporalio/proto';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { startPlatform } from '../src/platform.ts';
import { startFakeDeepgramServer } from '../test/fakes/deepgram-server.ts';
import { startFakeLlmServer } from '../test/fakes/llm-server.ts';
import { startFakeSpeechServer } from '../test/fakes/speech-server.ts';
import { createScratchDatabase } from '../test/support/scratch-database.ts';
import { setUpCallingAccount } from './calls/account.ts';
import { auditCampaign, campaignCompleted, createCampaign, spread, startCampaign, statusTally } from './calls/campaign.ts';
import { calleeNumber } from './calls/callees.ts';
import { benchEnv } from './platform-env.ts';
import { processUsage, selfUsage } from './webhooks/usage.ts';

const { values } = parseArgs({ options: { 'leads': { type: 'string', default: '10000' }, 'parallel': { type: 'string', default: '50' }, 'hold': { type: 'string', default: '20' } } });
const leadCount = Number(values.leads);
const parallel = Number(values.parallel);
if (!(leadCount >= 1 && leadCount <= 10_000)) throw new Error('--leads: 1 to 10000 (each lead has a number of its own)');
if (!(parallel >= 1 && parallel <= 1000)) throw new Error('--parallel: 1 to 1000, as max_calls_in_parallel');
const holdSeconds = Number(values.hold);
if (!(Number.isInteger(holdSeconds) && holdSeconds >= 1 && holdSeconds <= 3600)) throw new Error('--hold: whole seconds, 1 to 3600');
const load = () => `load average ${os.loadavg()[0]!.toFixed(1)} on ${os.availableParallelism()} cores`;

const llm = await startFakeLlmServer({ chunkSize: 8 });
llm.respond((request) => (request.tool_choice
  ? { toolCalls: [{ name: 'record_call_evaluation', arguments: { status: true, summary: 'Bench call.' } }] }
  : { reply: 'Goodbye!' }));
const deepgram = await startFakeDeepgramServer({ idleTimeoutMs: 60_000 });
const speech = await startFakeSpeechServer();
const scratch = process.env.DATABASE_URL ? await createScratchDatabase(process.env.DATABASE_URL, 'parley_bench') : undefined;
if (process.env.DATABASE_URL && !scratch) throw new Error('The bench creates a database of its own on DATABASE_URL\'s server, and may not.');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-campaign-bench-'));
const { env, baseUrl } = await benchEnv({
  dataDir,
  llmUrl: llm.baseUrl,
  extra: {
    MEDIA_MAX_CALLS: String(parallel), SANDBOX_CARRIER_PACE: 'instant', SANDBOX_SILENT_CALLEE_SECONDS: String(holdSeconds),
    STT_PROVIDER: 'deepgram', DEEPGRAM_URL: deepgram.url, DEEPGRAM_API_KEY: deepgram.apiKey,
    TTS_PROVIDER: 'openai', OPENAI_TTS_BASE_URL: speech.openaiBaseUrl, OPENAI_TTS_API_KEY: speech.openaiKey,
    ...(scratch ? { DATABASE_URL: scratch.url } : {}),
  },
});
const config = loadConfig(env);
// The plan's lines: the campaign's `--parallel` beside the share campaigns leave to inbound calls (CAMPAIGN_INBOUND_RESERVE).
const planLines = Math.ceil((parallel * 100) / (100 - config.campaignInboundReservePercent));
const running = await startPlatform({ config, logger: createLogger(config), role: 'all' });
const knex = running.database.knex;
let exitCode = 0;

try {
  const account = await setUpCallingAccount({
    knex, baseUrl, maxCallsInParallel: planLines, initialMessage: 'Hello.', voice: (name) => /\(OpenAI\)$/.test(name),
  });
  const campaignId = await createCampaign(account, { name: 'Dispatch bench', maxCallsInParallel: parallel, maxRetries: 1, retryInterval: 10 });
  const csv = ['phone_number', ...Array.from({ length: leadCount }, (_, index) => calleeNumber(index, 'silent-hang-up'))].join('\n');
  const imported = await account.request<{ created: number }>('POST', `/user/campaigns/${campaignId}/leads/import`, {
    token: account.token, body: csv, headers: { 'content-type': 'text/csv' },
  });
  if (imported.status !== 200 || imported.body.created !== leadCount) throw new Error(`importing the leads: HTTP ${imported.status} ${imported.text}`);
  console.log(`${leadCount} leads, max_calls_in_parallel ${parallel} (MEDIA_MAX_CALLS ${parallel}; the plan's ${planLines} lines less ` +
    `${config.campaignInboundReservePercent}% kept for inbound calls); callees answer at the dial and hang up ${holdSeconds} s later; ` +
    `${config.database.url ? 'PostgreSQL' : 'embedded PGlite'}, STT ${config.stt.provider}, TTS ${config.tts.provider} (fakes); ${load()}`);

  const temporalPid = Number(fs.readFileSync(path.join(dataDir, 'temporal.pid'), 'utf8'));
  const [temporalBefore, selfBefore] = [processUsage(temporalPid), selfUsage()];
  const startedAt = await startCampaign(account, campaignId);
  // Generous (2 s a lead, as on a loaded machine of 2 shared cores, plus 10 min): a campaign that does not finish is a failure.
  const completed = await campaignCompleted(knex, campaignId, leadCount * 2000 + 10 * 60_000);
  const wallMs = Date.now() - startedAt;
  const audit = await auditCampaign(knex, campaignId, parallel);
  const cpuPerCall = (before: { cpuMs: number }, after: { cpuMs: number }) => ((after.cpuMs - before.cpuMs) / Math.max(audit.calls, 1)).toFixed(0);
  const [temporalAfter, selfAfter] = [processUsage(temporalPid), selfUsage()];
  const histories = await callHistories(knex, 20);

  console.log(`campaign ${completed ? 'completed' : 'NOT completed'} ${(wallMs / 1000).toFixed(1)} s after update-status: ${(audit.leads / (wallMs / 60_000)).toFixed(0)} leads per minute ` +
    `(${(audit.calls / (audit.spanMs / 60_000)).toFixed(0)} calls per minute from the first call to the last call's end, ${(audit.spanMs / 1000).toFixed(1)} s)`);
  console.log(`slot utilisation (time-averaged calls in flight ÷ ${parallel}): ${audit.utilisation.toFixed(2)} (goal > 0.9); ` +
    `most calls live at once: ${audit.mostAtOnce} (at most ${parallel})`);
  console.log(`slot freed → next dial, over ${audit.slotToDialMs.length} freed slots: ${spread(audit.slotToDialMs)}`);
  console.log(`CPU per call: platform process ${cpuPerCall(selfBefore, selfAfter)} ms, Temporal dev server ${cpuPerCall(temporalBefore, temporalAfter)} ms; ` +
    `a call's workflow, over the last ${histories.calls}: ${histories.tasks.toFixed(1)} workflow tasks, ${histories.events.toFixed(1)} history events`);
  console.log(`leads: ${statusTally(audit.statuses)}; not in a final status: ${audit.open}; calls ${audit.calls}, still live ${audit.callsLive}; ` +
    `leads with more calls than attempts ${audit.moreCallsThanAttempts}, fewer ${audit.fewerCallsThanAttempts}; ${load()}`);
  if (!completed || audit.mostAtOnce > parallel || audit.open > 0 || audit.moreCallsThanAttempts > 0 || audit.callsLive > 0) exitCode = 1;
} finally {
  await running.stop();
  await Promise.all([llm.close(), deepgram.close(), speech.close()]);
  await scratch?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
process.exit(exitCode);

/** The mean workflow tasks and history events of the workflows of the last `count` calls. */
async function callHistories(db: typeof knex, count: number): Promise<{ calls: number; tasks: number; events: number }> {
  const ids = await db('calls').orderBy('id', 'desc').limit(count).pluck('id');
  let [tasks, events] = [0, 0];
  for (const id of ids) {
    const history = await running.temporal.client.workflow.getHandle(`call-${id}`).fetchHistory();
    events += history.events?.length ?? 0;
    tasks += history.events?.filter((event) => String(event.eventType) === String(proto.temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)).length ?? 0;
  }
  return { calls: ids.length, tasks: tasks / Math.max(ids.length, 1), events: events / Math.max(ids.length, 1) };
}
