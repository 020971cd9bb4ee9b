/**
 * Crash drill for phone calls:
 *
 *   DATABASE_URL=$(bash scripts/setup-postgres.sh) npm run drill:calls -- [--runs 20] [--calls 4] [--kill-within 12000]
 *
 * Runs the Temporal dev server, the api role (with the sandbox carrier), the worker role and the media role as
 * processes of their own on a database of the drill's own (bench/cluster.ts), on the embedded speech stack, with
 * a fake language model in this process. Each run places `--calls` calls at once from one account to scripted
 * callees of numbers of their own (persons saying one line, and one busy, unanswered, failing or silent callee
 * in turn), SIGKILLs the worker (even runs) or the media process (odd runs) at a random moment within
 * `--kill-within` ms of the first call (every other worker kill within its first second, while the calls are
 * dialed; a call lasts about 10 s), starts it again after up to 2 s, lets the calls settle and checks every one of them
 * (bench/calls/audit.ts): a final status, exactly one ledger entry for each call that cost something and
 * none for the others, no call dialed twice (the carrier's calls to the number), no slot still held. It
 * prints each run's counts and the totals, and exits non-zero on any violation. Never part of `npm test`.
 */
import { randomInt } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { connectPostgres } from '../src/db/database.ts';
import type { ScriptedCallee } from '../src/simulators/sandbox-carrier/callees.ts';
import { startFakeLlmServer } from '../test/fakes/llm-server.ts';
import { setUpCallingAccount } from './calls/account.ts';
import { auditCalls, openSlots, settle, tally, type AuditedCall, type PlacedCall } from './calls/audit.ts';
import { calleeNumber, sandboxCarrierApi } from './calls/callees.ts';
import { startCluster, type ClusterRole } from './cluster.ts';

const { values } = parseArgs({ options: { 'runs': { type: 'string', default: '20' }, 'calls': { type: 'string', default: '4' }, 'kill-within': { type: 'string', default: '12000' } } });
const runs = Number(values.runs);
const callsPerRun = Number(values.calls);
const killWithinMs = Number(values['kill-within']);
// Long enough for activities of a killed worker to time out and be retried (their start-to-close timeouts
// are 20-30 s), and for the longest call (the time limit of 120 s) to end.
const SETTLE_MS = 4 * 60_000;
const unanswered: ScriptedCallee[] = ['busy', 'no-answer', 'failed', 'silent-hang-up'];

const llm = await startFakeLlmServer({ chunkSize: 8 });
llm.respond(() => ({ reply: 'Thank you for your time. Goodbye!' }));
const cluster = await startCluster({
  name: 'call drill',
  roles: ['api', 'worker', 'media'],
  env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'drill', DATABASE_POOL_MAX: '5' },
});
const database = await connectPostgres(cluster.databaseUrl, 5);
const { knex } = database;
let failed = false;

try {
  const account = await setUpCallingAccount({ knex, baseUrl: cluster.baseUrl, maxCallsInParallel: null, initialMessage: 'Hello, this is Parley calling.' });
  const carrier = sandboxCarrierApi(cluster.baseUrl, cluster.env.APP_KEY!);
  console.log(`${runs} runs of ${callsPerRun} calls; the worker or the media process SIGKILLed within ${killWithinMs} ms of the first call, then started again; ` +
    `load average ${os.loadavg()[0]!.toFixed(1)} on ${os.availableParallelism()} cores`);
  const all: AuditedCall[] = [];
  let sequence = 0;
  for (let run = 0; run < runs; run++) {
    const victim: ClusterRole = run % 2 === 0 ? 'worker' : 'media';
    const callees: ScriptedCallee[] = Array.from({ length: callsPerRun }, (_, index) => (index === callsPerRun - 1 && callsPerRun > 1 ? unanswered[run % unanswered.length]! : 'person'));
    const due = callees.map((callee) => ({ callee, to: calleeNumber(sequence++, callee) }));
    for (const call of due) if (call.callee === 'person') await carrier.script(call.to, ['Thank you, goodbye.']);

    const startedAt = Date.now();
    // Every other kill of the worker falls in the first second, while the calls are being dialed.
    const killAt = randomInt(run % 4 === 0 ? 1000 : killWithinMs);
    const answers = await Promise.all(due.map((call) => account.request('POST', '/user/make_call', { token: account.token, body: { phone_number: call.to, assistant_id: account.assistantId } })));
    const placed: PlacedCall[] = [];
    answers.forEach((answer, index) => {
      if (answer.status === 200) placed.push({ callId: answer.body.call_id as number, ...due[index]! });
      else console.log(`  run ${run + 1}: make_call answered ${answer.status} ${answer.text}`);
    });
    await new Promise((resolve) => setTimeout(resolve, Math.max(startedAt + killAt - Date.now(), 0)));
    await cluster.crash(victim, randomInt(2000));

    const live = await settle(knex, placed.map((call) => call.callId), SETTLE_MS);
    const audited = await auditCalls(knex, carrier, placed);
    all.push(...audited);
    const violations = audited.flatMap((call) => call.violations.map((violation) => `call ${call.callId} (${call.callee}): ${violation}`));
    const slots = await openSlots(knex, account.userId);
    if (slots > 0) violations.push(`${slots} slots still held`);
    if (violations.length > 0 || placed.length < due.length) failed = true;
    console.log(`run ${String(run + 1).padStart(2)}: ${victim} killed ${(killAt / 1000).toFixed(1)} s in; ${tally(audited.map((call) => call.status))}; ` +
      `charged ${audited.filter((call) => call.costMicros > 0).length}, ledger entries ${audited.reduce((sum, call) => sum + call.ledgerEntries, 0)}, ` +
      `dials ${audited.reduce((sum, call) => sum + call.dials.length, 0)}; settled in ${((Date.now() - startedAt) / 1000).toFixed(0)} s` +
      `${live.length ? `, ${live.length} still live` : ''}; violations ${violations.length}`);
    for (const violation of violations) console.log(`  ${violation}`);
  }
  const violations = all.reduce((sum, call) => sum + call.violations.length, 0);
  console.log(`totals: ${all.length} calls (${tally(all.map((call) => call.status))}); charged ${all.filter((call) => call.costMicros > 0).length} with ` +
    `${all.filter((call) => call.costMicros > 0 && call.ledgerEntries === 1).length} having exactly one ledger entry, ` +
    `${all.filter((call) => call.costMicros === 0 && call.ledgerEntries > 0).length} entries for calls that cost nothing; ` +
    `dialed twice ${all.filter((call) => call.dials.length > 1).length}, never dialed ${all.filter((call) => call.dials.length === 0).length}; ` +
    `not in a final status ${all.filter((call) => !call.ended).length}; violations ${violations}; load average ${os.loadavg()[0]!.toFixed(1)}`);
} finally {
  await database.close();
  await cluster.close();
  await llm.close();
}
process.exit(failed ? 1 : 0);
