/**
 * Parley next to Pipecat 1.14 on the same machine, in one run, measured by the same callers: the Pipecat anchor's
 * load.py (N simultaneous Twilio Media Streams callers saying the same cached Piper sentence, seeded pauses).
 * Both products hear the same fake model (the anchor's fake_llm.py: first token after 200 ms, a word every 10 ms)
 * and run the same offline stack: Silero VAD, Smart Turn, Whisper tiny.en, Piper joe.
 * - Pipecat: the anchor's server.py (its Twilio example, models loaded once per process).
 * - Parley: `src/main.ts all` as `npm start` runs it (embedded PGlite, the Temporal dev server as its child),
 *   STT_PROVIDER and TTS_PROVIDER local, the model at fake_llm.py; an account made with the CLI and an assistant
 *   with Pipecat's greeting and prompt and the Piper voice, the turn policy at its defaults.
 * The callers and the table are bench/anchors/pipecat/side_by_side.py's, run with the anchor's Python.
 *
 *   bench/anchors/pipecat/install.sh        # once: the anchor into .tools/pipecat-anchor (PyPI only)
 *   npm run bench:pipecat-side-by-side -- [--calls 1,4,8] [--turns 4] [--seed 1] [--sentence "..."] [--json-out file]
 * The callers say the anchor's sentence unless told another (`--sentence`; each is synthesized once and cached).
 * Levels above 10 calls need a plan of more than the default plan's 10 calls at once, and MEDIA_MAX_CALLS
 * (8 with Piper on two cores) refuses calls above it, which the table then shows as errors.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { CallTurn, TurnMetrics } from '../src/voice/hooks.ts';
import { createTestAssistant } from '../test/support/assistants.ts';
import { freePort } from '../test/support/ports.ts';
import { deployParley, type ParleyDeployment } from './calls/parley-process.ts';
import { spread } from './voice/turns.ts';

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '1,4,8' },
    turns: { type: 'string', default: '4' },
    seed: { type: 'string', default: '1' },
    sentence: { type: 'string' },
    'json-out': { type: 'string' },
  },
});
if (values.calls.split(',').some((level) => !(Number(level) >= 1 && Number(level) <= 10))) {
  throw new Error('--calls takes levels from 1 to 10 (the account is on the default plan: 10 calls at once)');
}

/** What Pipecat's server says and is told (server.py), so both products speak the same lines. */
const GREETING = 'Hello, thanks for calling. How can I help?';
const SYSTEM = 'You are a phone assistant. Answer in one or two short sentences.';
const home = path.resolve(process.env.PIPECAT_ANCHOR_HOME ?? '.tools/pipecat-anchor');
const python = path.join(home, 'venv', 'bin', 'python');
const anchor = path.join(home, 'src');
if (!fs.existsSync(python) || !fs.existsSync(path.join(anchor, 'load.py'))) {
  throw new Error(`The Pipecat anchor is not installed in ${home}: run bench/anchors/pipecat/install.sh first.`);
}
const env = { ...process.env, PIPECAT_ANCHOR_HOME: home };
const logs = path.join(home, 'logs');
fs.mkdirSync(logs, { recursive: true });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A Python process of the anchor's, in a process group of its own, its output in logs/<name>.log. */
function startPython(name: string, args: string[]): ChildProcess {
  const log = fs.openSync(path.join(logs, `${name}.log`), 'w');
  const child = spawn(python, args, { env, stdio: ['ignore', log, log], detached: true });
  fs.closeSync(log);
  return child;
}

async function waitForHttp(url: string, child: ChildProcess, name: string): Promise<void> {
  for (const began = Date.now(); (await fetch(url).then((answer) => answer.ok, () => false)) === false; await sleep(300)) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode} (see ${logs}/${name}.log)`);
    if (Date.now() - began > 180_000) throw new Error(`${name} did not answer ${url} within 180 s`);
  }
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(10_000)]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** An account with credit and an assistant speaking with the Piper voice; its API key and the assistant's id. */
async function parleyAssistant(parley: ParleyDeployment): Promise<{ token: string; assistantId: number }> {
  const token = (JSON.parse(parley.cli('user:create', '--name', 'Side by side', '--email', `side-by-side-${Date.now()}@example.test`, '--balance', '100000')) as { api_key: string }).api_key;
  await parley.start();
  const get = async (url: string) => (await parley.request('GET', url, { token })).body as { id: number; iso_2?: string; name?: string }[];
  const english = (await get('/user/assistants/languages')).find((language) => language.iso_2 === 'en')?.id;
  const voice = (await get(`/user/assistants/voices?mode=pipeline&language_id=${english}`)).find((entry) => /piper/i.test(entry.name ?? ''));
  if (!voice) throw new Error('the catalog has no Piper voice');
  const { id } = await createTestAssistant(parley, { token }, {
    voice_id: voice.id, initial_message: GREETING, system_prompt: SYSTEM, max_call_duration: 600,
  });
  return { token, assistantId: id };
}

/**
 * Where Parley's time went in the run's calls (warm-up included), from the turns it stored: the explanation of
 * its row in the table, which load.py measured from outside.
 */
async function parleyStages(parley: ParleyDeployment, token: string): Promise<void> {
  const page = await parley.request<{ data: { turns: CallTurn[] | null }[] }>('GET', '/user/calls?per_page=100', { token });
  const turns = page.body.data.flatMap((call) => call.turns ?? []);
  const replies = turns.filter((turn) => turn.role === 'assistant' && turn.metrics.end_of_turn_decision_ms !== undefined);
  const of = (pick: keyof TurnMetrics) => spread(replies.map((turn) => turn.metrics[pick] ?? Number.NaN));
  const heard = new Map<string, number>();
  for (const turn of turns.filter((entry) => entry.role === 'user')) heard.set(turn.text, (heard.get(turn.text) ?? 0) + 1);
  console.log(`\nParley's stored turn metrics, p50 / p95 over ${replies.length} replies: engine (end of speech → first frame sent) ${of('end_of_speech_to_first_audio_ms')}, ` +
    `turn decision ${of('end_of_turn_decision_ms')}, recognizer final ${of('stt_final_delay_ms')}, model first token ${of('llm_first_token_ms')}, ` +
    `first audio synthesized ${of('tts_first_byte_ms')}; drafted before the commit ${replies.filter((turn) => turn.metrics.preemptive).length}, ` +
    `drafts discarded ${replies.reduce((sum, turn) => sum + (turn.metrics.preemptive_discarded ?? 0), 0)}`);
  console.log(`Parley heard: ${[...heard].map(([text, count]) => `${JSON.stringify(text)} ×${count}`).join(', ')}`);
}

const [llmPort, pipecatPort] = [await freePort(), await freePort()];
const llmUrl = `http://127.0.0.1:${llmPort}`;
let llm: ChildProcess | undefined;
let pipecat: ChildProcess | undefined;
let parley: ParleyDeployment | undefined;
// The servers run in process groups of their own, which a Ctrl-C in the terminal does not reach: stop them here.
process.once('SIGINT', () => {
  for (const group of [pipecat?.pid, llm?.pid, parley?.pid()]) {
    try {
      if (group) process.kill(-group, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  process.exit(130);
});
try {
  llm = startPython('fake_llm', [path.join(anchor, 'fake_llm.py'), '--port', String(llmPort), '--ttft-ms', '200', '--token-ms', '10']);
  await waitForHttp(`${llmUrl}/health`, llm, 'fake_llm');
  parley = await deployParley({ name: 'sidebyside', llmUrl: `${llmUrl}/v1`, extra: { STT_PROVIDER: 'local', TTS_PROVIDER: 'local', SIP_ENABLED: 'false' } });
  const { token, assistantId } = await parleyAssistant(parley);
  pipecat = startPython('server', [path.join(anchor, 'server.py'), '--port', String(pipecatPort), '--llm-url', `${llmUrl}/v1`]);
  await waitForHttp(`http://127.0.0.1:${pipecatPort}/health`, pipecat, 'server');
  const driver = spawn(python, [
    path.join(import.meta.dirname, 'anchors', 'pipecat', 'side_by_side.py'),
    '--calls', values.calls, '--turns', values.turns, '--seed', values.seed, '--llm-url', llmUrl,
    '--pipecat-url', `ws://127.0.0.1:${pipecatPort}/ws`, '--pipecat-pid', String(pipecat.pid),
    '--parley-api', parley.baseUrl, '--parley-token', token, '--parley-assistant', String(assistantId),
    '--parley-pid', String(parley.pid()), '--parley-metrics', parley.metricsUrl,
    ...(values.sentence ? ['--sentence', values.sentence] : []),
    ...(values['json-out'] ? ['--json-out', path.resolve(values['json-out'])] : []),
  ], { env, stdio: 'inherit' });
  const [code] = await new Promise<[number | null]>((resolve) => driver.once('exit', (exitCode) => resolve([exitCode])));
  if (code !== 0) process.exitCode = 1;
  await parleyStages(parley, token);
} finally {
  await stop(pipecat);
  await stop(llm);
  await parley?.close();
}
