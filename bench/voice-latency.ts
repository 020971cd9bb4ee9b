/**
 * Latency of one web call, the whole platform in this process, the callers in a child process (voice/callers.ts)
 * speaking their lines in espeak-ng's voice and in Piper's. Two stacks:
 * - offline: Silero VAD, Whisper tiny.en, Smart Turn, the Piper voice; the fake language model answers its
 *   first piece after `--llm-ms` and one of 8 characters every `--llm-piece-ms` after (so the first sentence,
 *   "Sure, I can help with that.", is complete about 50 ms after the first piece, as in the Pipecat anchor);
 * - hosted: the same VAD and turn model, Deepgram's streaming recognizer (fake, each result 100 ms late),
 *   OpenAI's speech (fake, first byte after 150 ms) and the model's first piece after 200 ms.
 * Per turn it prints the latency the caller felt (its end of speech → the first reply audio frame it received)
 * and the stored turn metrics: the turn policy's decision (end of speech → the turn committed), the
 * recognizer's final words, the model's first token, the synthesizer's first audio, and whether the reply was
 * drafted before the commit. With drafts the stages overlap: the model answers while the policy still waits.
 * A first call warms the models up (its greeting is the cold start); the next are measured.
 * Then, on the offline stack, a call times barge-in: each time a reply has played half a second, the caller
 * speaks over it (its first frame voiced); from that onset it times the `clear` it receives and the last reply
 * frame before it, and counts reply frames after the clear while it still speaks (there should be none).
 *
 *   npm run bench:voice-latency -- [--stack offline|hosted|both] [--rounds 1] [--llm-ms 200] [--llm-piece-ms 15]
 *     [--endpoint vad|ai] [--sensitivity 0.5] [--barge-ins 5] [--language de]
 * The turn policy is the assistant's (`endpoint_type`, `endpoint_sensitivity`; defaults vad and 0.5).
 * Pipecat 1.14 on the offline stack, this machine, quiet: p50 1191 ms, p95 1275 ms at one call
 * (/work/shared/anchors/pipecat/README.md).
 * `--language de` (or es, fr) holds an offline call in that language instead (`--stack` is not read): the
 * caller speaks espeak-ng's voice of it, the assistant hears it with Whisper base and speaks with its eSpeak
 * voice (no Piper voice of it is installed). The same run first measures an English call on the same footing
 * (the caller and the assistant in eSpeak's English, Whisper tiny.en) as the baseline, and prints the
 * difference of the two felt p50s; the barge-in call is in the language.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { loadVoiceSettings } from '../src/resources/assistants/voice-profile.ts';
import type { CallerLine } from './voice/caller-audio.ts';
import { BENCH_LANGUAGES } from './voice/languages.ts';
import { startBenchPlatform, type BenchPlatform } from './voice/platform.ts';
import type { BargeInReply, CallPlan, CallResult, FakeDelays, RunReply } from './voice/protocol.ts';
import { matchTurns, ms, spread, spreadToMax, type MeasuredTurn } from './voice/turns.ts';
import { percentile } from './percentile.ts';

const { values } = parseArgs({
  options: {
    stack: { type: 'string', default: 'both' },
    'llm-ms': { type: 'string', default: '200' },
    'llm-piece-ms': { type: 'string', default: '15' },
    rounds: { type: 'string', default: '1' },
    endpoint: { type: 'string', default: 'vad' },
    sensitivity: { type: 'string', default: '0.5' },
    'barge-ins': { type: 'string', default: '5' },
    language: { type: 'string', default: 'en' },
  },
});
const stacks = values.stack === 'both' ? ['offline', 'hosted'] : [values.stack];
const bargeIns = Number(values['barge-ins']);
/** How long the reply has played when the caller interrupts it: well inside its first sentence. */
const BARGE_IN_AFTER_MS = 500;
const language = values.language;
if (!BENCH_LANGUAGES[language]) throw new Error(`--language takes ${Object.keys(BENCH_LANGUAGES).join(', ')}`);
const english = BENCH_LANGUAGES.en!;
const REPLY = english.reply;

interface Stack {
  name: string;
  /** The assistant's language (ISO 639-1). */
  language: string;
  /** What the caller says, one line a turn. */
  lines: CallerLine[];
  /** The assistant's greeting; the platform's English one when absent. */
  greeting?: string;
  delays: FakeDelays;
  env: Parameters<typeof startBenchPlatform>[0]['env'];
  voice: (voice: { name: string }) => boolean;
  /** Said over a reply by the barge-in call; no barge-in call when absent. */
  interruption?: CallerLine;
}

const offlineDelays = (reply: string): FakeDelays => ({ llmMs: Number(values['llm-ms']), llmPieceMs: Number(values['llm-piece-ms']), sttResultMs: 0, ttsFirstByteMs: 0, reply, heard: '' });
const bothVoices: CallerLine[] = (['espeak', 'piper'] as const).flatMap((voice) => english.lines.map((text) => ({ text, voice })));

const offline: Stack = {
  name: 'offline (Silero VAD, Whisper tiny.en, Smart Turn, Piper)',
  language: 'en',
  lines: bothVoices,
  delays: offlineDelays(REPLY),
  env: () => ({ STT_PROVIDER: 'local', TTS_PROVIDER: 'local' }),
  voice: (voice) => /piper/i.test(voice.name),
  interruption: { text: english.interruption, voice: 'espeak' },
};
const hosted: Stack = {
  name: 'hosted fakes (Deepgram +100 ms, OpenAI speech first byte 150 ms, model 200 ms; Silero VAD and Smart Turn local)',
  language: 'en',
  lines: bothVoices,
  delays: { llmMs: 200, llmPieceMs: Number(values['llm-piece-ms']), sttResultMs: 100, ttsFirstByteMs: 150, reply: REPLY, heard: english.lines[0]! },
  env: (urls) => ({
    STT_PROVIDER: 'deepgram', DEEPGRAM_URL: urls.deepgram, DEEPGRAM_API_KEY: urls.deepgramKey,
    TTS_PROVIDER: 'openai', OPENAI_TTS_BASE_URL: urls.openaiSpeech, OPENAI_TTS_API_KEY: urls.openaiKey,
  }),
  voice: (voice) => /\(OpenAI\)$/.test(voice.name),
};

/**
 * The offline stack in `code` with eSpeak on both sides: the caller speaks espeak-ng's voice of the language,
 * the assistant hears it with Whisper (tiny.en for English, base for the others) and speaks its eSpeak voice.
 */
function offlineIn(code: string, withBargeIn: boolean): Stack {
  const spoken = BENCH_LANGUAGES[code]!;
  const said = (text: string): CallerLine => ({ text, voice: 'espeak', espeakVoice: spoken.callerVoice });
  return {
    name: `offline in ${code} (Silero VAD, Whisper ${code === 'en' ? 'tiny.en' : 'base'}, Smart Turn, eSpeak; the caller in espeak-ng ${spoken.callerVoice})`,
    language: code,
    lines: spoken.lines.map(said),
    greeting: spoken.greeting,
    delays: offlineDelays(spoken.reply),
    env: () => ({ STT_PROVIDER: 'local', TTS_PROVIDER: 'local' }),
    voice: (voice) => (code === 'en' ? /^English .*eSpeak/ : /eSpeak/).test(voice.name),
    ...(withBargeIn ? { interruption: said(spoken.interruption) } : {}),
  };
}

function report(turns: MeasuredTurn[], voices: string[]): void {
  console.log('turn | voice  | felt | engine | decision | stt | llm | tts | drafted | heard');
  turns.forEach((turn, index) => {
    const { metrics } = turn;
    console.log([String(index + 1).padStart(4), (voices[index] ?? '').padEnd(6), ms(turn.feltMs).padStart(4), ms(metrics.end_of_speech_to_first_audio_ms).padStart(6),
      ms(turn.endpointMs).padStart(8), ms(metrics.stt_final_delay_ms).padStart(3), ms(metrics.llm_first_token_ms).padStart(3), ms(metrics.tts_first_byte_ms).padStart(3),
      (metrics.preemptive === undefined ? '-' : metrics.preemptive ? 'yes' : 'no').padStart(7), turn.heard].join(' | '));
  });
  const felt = turns.map((turn) => turn.feltMs);
  const median = (pick: (turn: MeasuredTurn) => number | undefined) => {
    const sorted = turns.map(pick).filter((value): value is number => value !== undefined && Number.isFinite(value)).sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
  };
  const feltP50 = median((turn) => turn.feltMs) ?? Number.NaN;
  const share = (name: string, value: number | undefined) => `${name} ${ms(value)} ms (${value === undefined ? '-' : ((value / feltP50) * 100).toFixed(0)} %)`;
  console.log(`\nfelt p50 / p95: ${spread(felt)}; engine (VAD end of speech → first frame sent): ${spread(turns.map((turn) => turn.metrics.end_of_speech_to_first_audio_ms ?? Number.NaN))}`);
  console.log(`stage p50s as shares of felt p50: ${[
    share('decision', median((turn) => turn.endpointMs)), share('stt', median((turn) => turn.metrics.stt_final_delay_ms)),
    share('llm', median((turn) => turn.metrics.llm_first_token_ms)), share('tts', median((turn) => turn.metrics.tts_first_byte_ms)),
  ].join(', ')}`);
  const drafted = turns.filter((turn) => turn.metrics.preemptive !== undefined);
  if (drafted.length > 0) {
    console.log(`replies drafted before the commit: ${drafted.filter((turn) => turn.metrics.preemptive).length} of ${drafted.length}; ` +
      `drafts discarded: ${drafted.reduce((sum, turn) => sum + (turn.metrics.preemptive_discarded ?? 0), 0)} (the stages overlap: decision and llm run together)`);
  }
}

/** The felt latency of each measured turn. */
async function measure(stack: Stack): Promise<number[]> {
  const platform = await startBenchPlatform({
    delays: stack.delays,
    env: stack.env,
    voice: stack.voice,
    language: stack.language,
    assistant: { endpoint_type: values.endpoint, endpoint_sensitivity: Number(values.sensitivity), ...(stack.greeting ? { initial_message: stack.greeting } : {}) },
  });
  try {
    return await run(platform, stack);
  } finally {
    await platform.close();
  }
}

async function run(platform: BenchPlatform, stack: Stack): Promise<number[]> {
  const { lines } = stack;
  const settings = await loadVoiceSettings(platform.running.database.knex, { id: platform.assistantId });
  if (!settings) throw new Error('the assistant has no voice settings');
  const plan = (maxTurns: number): CallPlan => ({
    apiUrl: platform.apiUrl, token: platform.token, assistantId: platform.assistantId, calls: 1, rampMs: 0,
    durationMs: 10 * 60_000, maxTurns, pauseMs: [600, 600], lines, settleMs: 1500,
  });
  const calls = async (maxTurns: number) => {
    const { results } = await platform.ask<RunReply>({ type: 'run', plan: plan(maxTurns) });
    for (const result of results) if (result.error) throw new Error(`call ${result.callId}: ${result.error}`);
    return results;
  };
  const [cold] = await calls(1);
  const measured: CallResult[] = [];
  for (let round = 0; round < Number(values.rounds); round++) measured.push(...await calls(lines.length));
  // Turns are stored as they commit; the last one may still be on its way.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const { turns, unmatched } = matchTurns(measured, await platform.turnsOf(measured.map((result) => result.callId)), settings);
  const voices = measured.flatMap((result) => result.turns.filter((turn) => turn.feltMs !== undefined && turn.userTurns.length > 0).map((turn) => lines[turn.line]!.voice));
  console.log(`\n== ${stack.name}: one web call, turn policy ${settings.endpointType} ${settings.endpointSensitivity}; model first piece after ${stack.delays.llmMs} ms ==`);
  report(turns, voices);
  if (unmatched > 0) console.log(`(${unmatched} line(s) left out: no reply, or their stored turns could not be found)`);
  const greetings = measured.flatMap((result) => (result.greetingMs === undefined ? [] : [result.greetingMs]));
  console.log(`answer → first greeting audio: ${spread(greetings)} warm; ${ms(cold?.greetingMs)} ms cold`);
  if (bargeIns > 0 && stack.interruption) {
    const { rounds } = await platform.ask<BargeInReply>({
      type: 'barge-in',
      plan: {
        apiUrl: platform.apiUrl, token: platform.token, assistantId: platform.assistantId, opening: lines[0]!,
        interruption: stack.interruption, rounds: bargeIns, afterMs: BARGE_IN_AFTER_MS,
      },
    });
    console.log(`\nbarge-in, ${rounds.length} rounds, interrupt_sensitivity ${settings.interruptSensitivity}: the caller speaks over a reply that has played ${BARGE_IN_AFTER_MS} ms (target: clear within 200 ms of the first voiced frame)`);
    console.log(`onset → clear received p50 / p95 / max: ${spreadToMax(rounds.map((round) => round.clearMs))}; ` +
      `onset → last reply frame before it: ${spreadToMax(rounds.map((round) => round.lastFrameMs))}; ` +
      `reply frames after the clear while the caller spoke: ${rounds.reduce((sum, round) => sum + round.framesAfterClear, 0)}`);
  }
  return turns.map((turn) => turn.feltMs);
}

if (language === 'en') {
  for (const name of stacks) await measure(name === 'hosted' ? hosted : offline);
} else {
  const p50 = (list: number[]) => percentile([...list].sort((a, b) => a - b), 50);
  // The baseline on the same footing: eSpeak on both sides, English heard by tiny.en.
  const baseline = p50(await measure(offlineIn('en', false)));
  const other = p50(await measure(offlineIn(language, true)));
  const difference = other - baseline;
  console.log(`\nfelt p50 ${language} ${other.toFixed(0)} ms − en ${baseline.toFixed(0)} ms (both eSpeak, same run) = ${difference >= 0 ? '+' : ''}${difference.toFixed(0)} ms (target: within 150 ms)`);
}
console.log(`\nmachine load average ${os.loadavg()[0]!.toFixed(1)} on ${os.availableParallelism()} cores`);
