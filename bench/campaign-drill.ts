/**
 * Crash drill for campaigns:
 *
 *   DATABASE_URL=$(bash scripts/setup-postgres.sh) npm run drill:campaign -- [--leads 500] [--kills 3]
 *
 * Runs the Temporal dev server, the api role (with the sandbox carrier), the worker role and the media role as
 * processes of their own on a database of the drill's own (bench/cluster.ts), with CAMPAIGN_RETRY_UNIT=second,
 * speech through the fake hosted providers (Deepgram, OpenAI speech) and the fake language model in this
 * process. The same campaign (`--leads` leads: persons saying one line, busy, unanswered, voicemail and failing
 * callees, a fifth of the unreached ones with a secondary contact; max_calls_in_parallel 10, max_retries 1,
 * retry_interval 10 s) runs twice on numbers of its own: once undisturbed, then with the worker process SIGKILLed
 * `--kills` times, spread over the time the first run took, and started again after up to 2 s.
 *
 * After each run it checks: the campaign completed; every lead in the final status its callee decides (0 lost);
 * no lead with more call records than attempts, and no number the carrier dialed more often than its lead has
 * calls (0 dialed twice for one attempt: an attempt's call row is keyed by the lead's attempt count); at most
 * 10 calls live at once (from the call records); and at the end, the same totals by final status in both runs.
 * It exits non-zero on any violation. Never part of `npm test`.
 */
import { randomInt } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { connectPostgres } from '../src/db/database.ts';
import type { ScriptedCallee } from '../src/simulators/sandbox-carrier/callees.ts';
import { startFakeDeepgramServer } from '../test/fakes/deepgram-server.ts';
import { startFakeLlmServer } from '../test/fakes/llm-server.ts';
import { startFakeSpeechServer } from '../test/fakes/speech-server.ts';
import { setUpCallingAccount } from './calls/account.ts';
import { addLeads, auditCampaign, campaignCompleted, createCampaign, startCampaign, statusTally, type CampaignAudit, type CampaignLead } from './calls/campaign.ts';
import { calleeNumber, drawCallees, parseMix, sandboxCarrierApi } from './calls/callees.ts';
import { startCluster } from './cluster.ts';

const { values } = parseArgs({ options: { 'leads': { type: 'string', default: '500' }, 'kills': { type: 'string', default: '3' } } });
const leadCount = Number(values.leads);
const kills = Number(values.kills);
// Two runs, each lead and contact on a number of its own (calleeNumber takes sequences below 10 000).
if (!(leadCount >= 1 && leadCount <= 4000)) throw new Error('--leads: 1 to 4000');
const PARALLEL = 10;
const MIX = 'person=40,busy=15,no-answer=15,voicemail=15,failed=15';
const CONTACT_KINDS: ScriptedCallee[] = ['person', 'voicemail', 'busy'];
// The longest a run may take: two 30 s rings and the 10 s between them for each unanswered lead, 10 at a time,
// and the activities of a killed worker timing out (20–30 s) three times over.
const runTimeoutMs = (leadCount / PARALLEL) * 90_000 + 10 * 60_000;

const load = () => `load average ${os.loadavg()[0]!.toFixed(1)} on ${os.availableParallelism()} cores`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The final status a callee gives a lead without retry_on_voicemail: the answered ones complete it. */
const finalStatus = (kind: ScriptedCallee) => (kind === 'person' || kind === 'voicemail' ? 'completed' : 'reached-max-retries');

const llm = await startFakeLlmServer({ chunkSize: 8 });
llm.respond((request) => (request.tool_choice
  ? { toolCalls: [{ name: 'record_call_evaluation', arguments: { status: true, summary: 'Drill call.' } }] }
  : { reply: 'Thank you for your time. Goodbye!' }));
const deepgram = await startFakeDeepgramServer({ idleTimeoutMs: 60_000 });
deepgram.respond(() => ({ text: 'Thank you, goodbye.' }));
const speech = await startFakeSpeechServer();
const cluster = await startCluster({
  name: 'campaign drill',
  roles: ['api', 'worker', 'media'],
  env: {
    LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'drill', DATABASE_POOL_MAX: '5', CAMPAIGN_RETRY_UNIT: 'second',
    STT_PROVIDER: 'deepgram', DEEPGRAM_URL: deepgram.url, DEEPGRAM_API_KEY: deepgram.apiKey,
    TTS_PROVIDER: 'openai', OPENAI_TTS_BASE_URL: speech.openaiBaseUrl, OPENAI_TTS_API_KEY: speech.openaiKey,
  },
});
const database = await connectPostgres(cluster.databaseUrl, 5);
const { knex } = database;
let failed = false;

try {
  const account = await setUpCallingAccount({
    knex, baseUrl: cluster.baseUrl, maxCallsInParallel: null, initialMessage: 'Hello, this is Parley calling.', voice: (name) => /\(OpenAI\)$/.test(name),
  });
  const carrier = sandboxCarrierApi(cluster.baseUrl, cluster.env.APP_KEY!);
  // The same callees in both runs: the lead's kind, and its contact's when it has one.
  const kinds = drawCallees(parseMix(MIX), leadCount).map((kind, index) => ({
    kind, contact: finalStatus(kind) === 'reached-max-retries' && index % 5 === 0 ? CONTACT_KINDS[index % CONTACT_KINDS.length] : undefined,
  }));
  const expected = new Map<string, number>();
  for (const status of kinds.flatMap((lead) => [finalStatus(lead.kind), ...(lead.contact ? [finalStatus(lead.contact)] : [])])) expected.set(status, (expected.get(status) ?? 0) + 1);
  console.log(`${leadCount} leads (${MIX}; ${kinds.filter((lead) => lead.contact).length} with a secondary contact), max_calls_in_parallel ${PARALLEL}, max_retries 1, ` +
    `retry_interval 10 s; expected final statuses: ${statusTally(expected)}; ${load()}`);

  let sequence = 0;
  const run = async (name: string, worker: { kills: number; withinMs: number }): Promise<{ audit: CampaignAudit; seconds: number }> => {
    const leads: CampaignLead[] = kinds.map((lead) => ({ phone: calleeNumber(sequence++, lead.kind), contacts: lead.contact ? [calleeNumber(sequence++, lead.contact)] : undefined }));
    const persons = leads.flatMap((lead, index) => [...kinds[index]!.kind === 'person' ? [lead.phone] : [], ...kinds[index]!.contact === 'person' ? lead.contacts! : []]);
    for (const phone of persons) await carrier.script(phone, ['Thank you, goodbye.']);
    const campaignId = await createCampaign(account, { name, maxCallsInParallel: PARALLEL, maxRetries: 1, retryInterval: 10 });
    await addLeads(account, campaignId, leads);
    const startedAt = await startCampaign(account, campaignId);
    const killsAt = Array.from({ length: worker.kills }, (_, index) => Math.round(((index + 0.5 + (randomInt(500) / 1000 - 0.25)) * worker.withinMs) / worker.kills));
    const done = campaignCompleted(knex, campaignId, runTimeoutMs);
    for (const at of killsAt) {
      await sleep(Math.max(startedAt + at - Date.now(), 0));
      const downMs = randomInt(2000);
      await cluster.crash('worker', downMs);
      console.log(`  ${name}: worker SIGKILLed ${(at / 1000).toFixed(1)} s in, started again ${(downMs / 1000).toFixed(1)} s later`);
    }
    const completed = await done;
    const seconds = (Date.now() - startedAt) / 1000;
    const audit = await auditCampaign(knex, campaignId, PARALLEL, carrier);
    const wrong = [...new Set([...expected.keys(), ...audit.statuses.keys()])].filter((status) => expected.get(status) !== audit.statuses.get(status));
    const violations = [
      ...completed ? [] : [`not completed within ${runTimeoutMs / 1000} s`],
      ...audit.open ? [`${audit.open} leads lost (not in a final status)`] : [],
      ...wrong.length ? [`final statuses differ from the callees': ${statusTally(audit.statuses)}`] : [],
      ...audit.moreCallsThanAttempts ? [`${audit.moreCallsThanAttempts} leads with more calls than attempts`] : [],
      ...audit.fewerCallsThanAttempts ? [`${audit.fewerCallsThanAttempts} leads with fewer calls than attempts`] : [],
      ...audit.carrierDialedTwice ? [`${audit.carrierDialedTwice} numbers dialed more often than their lead has calls`] : [],
      ...audit.mostAtOnce > PARALLEL ? [`${audit.mostAtOnce} calls live at once`] : [],
      ...audit.callsLive ? [`${audit.callsLive} calls still live`] : [],
    ];
    if (violations.length) failed = true;
    console.log(`${name}: ${completed ? 'completed' : 'NOT completed'} in ${seconds.toFixed(0)} s; leads ${audit.leads} (${statusTally(audit.statuses)}), lost ${audit.open}; ` +
      `calls ${audit.calls}, leads with more calls than attempts ${audit.moreCallsThanAttempts}, numbers dialed more than their calls ${audit.carrierDialedTwice}; ` +
      `most calls at once ${audit.mostAtOnce}; violations ${violations.length}; ${load()}`);
    for (const violation of violations) console.log(`  ${violation}`);
    return { audit, seconds };
  };

  const calm = await run('without crashes', { kills: 0, withinMs: 0 });
  const crashed = await run(`worker killed ${kills} times`, { kills, withinMs: calm.seconds * 1000 * 0.8 });
  const same = statusTally(calm.audit.statuses) === statusTally(crashed.audit.statuses);
  if (!same) failed = true;
  console.log(`totals by final status ${same ? 'equal' : 'DIFFER'}: ${statusTally(calm.audit.statuses)} | ${statusTally(crashed.audit.statuses)}; ` +
    `calls ${calm.audit.calls} | ${crashed.audit.calls}; ${load()}`);
} finally {
  await database.close();
  await cluster.close();
  await Promise.all([llm.close(), deepgram.close(), speech.close()]);
}
process.exit(failed ? 1 : 0);
