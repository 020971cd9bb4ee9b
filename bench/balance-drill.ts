/**
 * Racing calls on a small balance:
 *
 *   npm run drill:balance -- [--web 5] [--phone 5] [--balance 0.30] [--hold-ms 8000]
 *
 * Runs Parley as `npm start` does (bench/calls/parley-process.ts), with an account of `--balance` USD (the
 * plan's 0.10 USD a minute), and asks for `--web` web calls and `--phone` phone calls all at once. Every web call
 * it is given is connected by a Media Streams caller of this process, which says a line every 10 s and hangs up
 * `--hold-ms` after its greeting (past a minute, the calls meet the end of what they could reserve); every phone
 * call rings a sandbox person who talks until the call ends. It then follows every call to
 * its end and prints how many were asked for, accepted, refused (and how), ran (answered), and ended for the
 * balance before they connected (`insufficient_balance`: none should), their end reasons, what was charged against
 * the balance, and the ledger entries per charged call. It exits non-zero when an accepted call failed for the
 * balance, the charges pass the balance, or a charged call has other than one ledger entry. Never part of `npm test`.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { startFakeLlmServer } from '../test/fakes/llm-server.ts';
import { connectMediaStream, L16_16K } from '../test/support/media-stream-client.ts';
import { spokenPcm } from '../test/support/speech.ts';
import { calleeNumber, sandboxCarrierApi } from './calls/callees.ts';
import { createCallingAccount, deployParley, waitFor } from './calls/parley-process.ts';

const { values } = parseArgs({
  options: { 'web': { type: 'string', default: '5' }, 'phone': { type: 'string', default: '5' }, 'balance': { type: 'string', default: '0.30' }, 'hold-ms': { type: 'string', default: '8000' } },
});
const [webCalls, phoneCalls, balanceUsd, holdMs] = [values.web, values.phone, values.balance, values['hold-ms']].map(Number) as [number, number, number, number];
const LIVE = new Set(['initiated', 'ringing', 'in-progress']);
const CHATTY = Array.from({ length: 12 }, (_, index) => `This is my answer number ${index + 1}, please go on.`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const tally = (items: string[]) => [...items.reduce((counts, item) => counts.set(item, (counts.get(item) ?? 0) + 1), new Map<string, number>())]
  .map(([item, count]) => `${item} ${count}`).join(', ') || '–';

const llm = await startFakeLlmServer({ chunkSize: 8 });
llm.respond((request) => (request.tool_choice
  ? { toolCalls: [{ name: 'record_call_evaluation', arguments: { status: true, summary: 'Drill call.' } }] }
  : { reply: 'I see. Please tell me more.' }));
const parley = await deployParley({ name: 'balance', llmUrl: llm.baseUrl, extra: { MEDIA_MAX_CALLS: String(webCalls + phoneCalls) } });
let failed = false;

try {
  const account = createCallingAccount(parley, { balanceUsd });
  await parley.start();
  const { request } = parley;
  const { token } = account;
  const web = webCalls > 0 ? await account.assistant() : undefined;
  const phone = phoneCalls > 0 ? await account.assistant(true) : undefined;
  const carrier = sandboxCarrierApi(parley.baseUrl, parley.appKey);
  const balanceBefore = Number((await request('GET', '/user/me', { token })).body.total_balance);
  const line = await spokenPcm('Yes, please go on.', { silenceMs: 100 });
  const callees = Array.from({ length: phoneCalls }, (_, index) => calleeNumber(index, 'person'));
  for (const to of callees) await carrier.script(to, CHATTY);
  console.log(`${webCalls} web and ${phoneCalls} phone calls asked for at once on a balance of ${balanceBefore.toFixed(2)} USD (0.10 USD a minute); ` +
    `web callers hang up ${holdMs / 1000} s after the greeting; ${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}; ` +
    `load average ${os.loadavg()[0]!.toFixed(1)} on ${os.availableParallelism()} cores`);

  const answers = await Promise.all([
    ...Array.from({ length: webCalls }, () => request('POST', '/user/web-calls', { token, body: { assistant_id: web!.id } }).then((answer) => ({ kind: 'web', answer }))),
    ...callees.map((to) => request('POST', '/user/make_call', { token, body: { phone_number: to, assistant_id: phone!.id } }).then((answer) => ({ kind: 'phone', answer }))),
  ]);
  const accepted = answers.filter(({ answer }) => answer.status === 200 || answer.status === 201);
  const refused = answers.filter(({ answer }) => answer.status !== 200 && answer.status !== 201);
  await Promise.all(accepted.filter(({ kind }) => kind === 'web').map(async ({ answer }) => {
    const caller = await connectMediaStream(answer.body.data.websocket_url as string, L16_16K);
    caller.start();
    await caller.waitFor(() => caller.playedSound.length > 0, 30_000, 'the greeting').catch(() => undefined);
    // The caller keeps talking, so the call's silence does not end it first.
    let open = true;
    void caller.closed.then(() => {
      open = false;
    });
    for (const until = Date.now() + holdMs; open && Date.now() < until;) {
      await Promise.race([caller.say(line), caller.closed]);
      await Promise.race([sleep(Math.min(10_000, Math.max(until - Date.now(), 0))), caller.closed]);
    }
    caller.stop();
  }));
  const ids = accepted.map(({ answer }) => Number(answer.body.call_id ?? answer.body.data.call_id));
  const ended = await Promise.all(ids.map((id) => waitFor(async () => {
    const read = await request('GET', `/user/calls/${id}`, { token });
    const body = read.body as { id: number; status: string; end_reason: string | null; answered_at: string | null; total_cost: number };
    return read.status === 200 && !LIVE.has(body.status) ? body : undefined;
  }, 5 * 60_000, 500)));
  const ledger = ((await request('GET', '/user/balance/transactions?per_page=100', { token })).body as { data: { reference: string | null; amount: number }[] }).data;
  const charged = ended.filter((call) => (call?.total_cost ?? 0) > 0);
  const chargedUsd = charged.reduce((sum, call) => sum + (call?.total_cost ?? 0), 0);
  const entries = charged.map((call) => ledger.filter((entry) => entry.reference === `call:${call?.id}`).length);
  const failedForBalance = ended.filter((call) => call?.end_reason === 'insufficient_balance').length;
  const ran = ended.filter((call) => Boolean(call?.answered_at)).length;

  console.log('asked | accepted | refused (status: count) | ran (answered) | failed for the balance | not ended | end reasons | charged (USD) | balance left (USD) | ledger entries per charged call');
  console.log(`${answers.length} | ${accepted.length} (${tally(accepted.map(({ kind }) => kind))}) | ${tally(refused.map(({ answer }) => String(answer.status)))} | ${ran} | ` +
    `${failedForBalance} | ${ended.filter((call) => !call).length} | ${tally(ended.map((call) => call?.end_reason ?? 'live'))} | ${chargedUsd.toFixed(6)} | ` +
    `${Number((await request('GET', '/user/me', { token })).body.total_balance).toFixed(6)} | ${tally(entries.map(String))}`);
  const refusalTexts = new Set(refused.map(({ answer }) => answer.text));
  for (const text of refusalTexts) console.log(`  refused with: ${text}`);
  if (failedForBalance > 0 || chargedUsd > balanceBefore + 1e-9 || entries.some((count) => count !== 1) || ended.some((call) => !call)) failed = true;
  console.log(`load average ${os.loadavg()[0]!.toFixed(1)}`);
} finally {
  await parley.close();
  await llm.close();
}
process.exit(failed ? 1 : 0);
