/**
 * Latency of one web call on the embedded default stack (Silero VAD, Whisper tiny.en, Piper joe), the whole
 * platform in this process, with the fake language model answering its first token after a fixed delay. A
 * scripted caller in a child process speaks espeak-ng lines, one per turn. Per turn it prints the latency the
 * caller felt (its end of speech → the first reply audio frame it received) and the shares the stored turn
 * metrics give: the turn policy's silence, the recognizer's words, the model's first token, the synthesizer's
 * first audio, and the rest (the platform's own time, including where the VAD placed the end of speech).
 * A first call warms the models up (its greeting is the cold start); the second is measured.
 * Then a third call times barge-in (issue 14: stop speaking within 200 ms of the caller's speech): the caller
 * says a line and, each time the reply has played half a second, speaks over it with a line whose first frame
 * is voiced; from that onset it times the `clear` it receives and the last reply frame before it, and counts
 * reply frames after the clear while it is still speaking (there should be none). Each reply to an
 * interruption is the next one interrupted.
 *
 *   npm run bench:voice-latency -- [--llm-ms 250] [--rounds 1] [--endpoint vad|ai] [--sensitivity 0.5] [--barge-ins 5] [--language de]
 * The turn policy is the assistant's (`endpoint_type`, `endpoint_sensitivity`; the defaults are vad and 0.5);
 * barge-in uses the default `interrupt_sensitivity` (0.5: 150 ms of voice from Silero's onset). `--barge-ins 0`
 * leaves the barge-in call out.
 * Pipecat 1.14 on the same stack and machine: p50 1191 ms, p95 1275 ms at one call (notes/speech-offline.md).
 * `--language de` (or es, fr) holds the calls in that language: the caller speaks espeak-ng's voice of it, the
 * assistant hears it with Whisper base and speaks with its eSpeak voice (no Piper voice of it is installed).
 * The same run first measures an English call on the same footing (Whisper tiny.en, the English eSpeak
 * voice) as the baseline, and prints the difference of the two.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { loadVoiceSettings } from '../src/resources/assistants/voice-profile.ts';
import { BENCH_LANGUAGES } from './voice/languages.ts';
import { startBenchPlatform } from './voice/platform.ts';
import type { BargeInReply, CallPlan, CallResult, RunReply } from './voice/protocol.ts';
import { matchTurns, ms, spread, spreadToMax } from './voice/turns.ts';
import { percentile } from './percentile.ts';

const { values } = parseArgs({
  options: {
    'llm-ms': { type: 'string', default: '250' },
    rounds: { type: 'string', default: '1' },
    endpoint: { type: 'string', default: 'vad' },
    sensitivity: { type: 'string', default: '0.5' },
    'barge-ins': { type: 'string', default: '5' },
    language: { type: 'string', default: 'en' },
  },
});
const llmMs = Number(values['llm-ms']);
const bargeIns = Number(values['barge-ins']);
/** How long the reply has played when the caller interrupts it: well inside its first sentence. */
const BARGE_IN_AFTER_MS = 500;
const language = values.language;
if (!BENCH_LANGUAGES[language]) throw new Error(`--language takes ${Object.keys(BENCH_LANGUAGES).join(', ')}`);

/** One platform, one assistant in `code` speaking with the voice `voice` picks: a cold call, the measured calls, then barge-in. */
async function measure(code: string, voice: (entry: { name: string }) => boolean, withBargeIn: boolean): Promise<number[]> {
  const spoken = BENCH_LANGUAGES[code]!;
  const platform = await startBenchPlatform({
    // Piper says the reply's first sentence in about 1.5 s: a barge-in at half a second lands mid-sentence.
    delays: { llmMs, sttResultMs: 0, ttsFirstByteMs: 0, reply: spoken.reply, heard: '' },
    env: () => ({ STT_PROVIDER: 'local', TTS_PROVIDER: 'local' }),
    voice,
    language: code,
    assistant: { endpoint_type: values.endpoint, endpoint_sensitivity: Number(values.sensitivity), initial_message: spoken.greeting },
  });
  try {
    const settings = await loadVoiceSettings(platform.running.database.knex, { id: platform.assistantId });
    if (!settings) throw new Error('the assistant has no voice settings');
    const plan = (maxTurns: number): CallPlan => ({
      apiUrl: platform.apiUrl, token: platform.token, assistantId: platform.assistantId, calls: 1, rampMs: 0,
      durationMs: 10 * 60_000, maxTurns, pauseMs: [600, 600], lines: spoken.lines, voice: spoken.callerVoice,
    });
    const run = async (maxTurns: number) => {
      const { results } = await platform.ask<RunReply>({ type: 'run', plan: plan(maxTurns) });
      for (const result of results) if (result.error) throw new Error(`call ${result.callId}: ${result.error}`);
      return results;
    };
    const [cold] = await run(1);
    const measured: CallResult[] = [];
    for (let round = 0; round < Number(values.rounds); round++) measured.push(...await run(spoken.lines.length));
    // Turns are stored as they commit; the last one may still be on its way.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const { turns, unmatched } = matchTurns(measured, await platform.turnsOf(measured.map((result) => result.callId)), settings);
    const bargeIn = withBargeIn && bargeIns > 0
      ? await platform.ask<BargeInReply>({
        type: 'barge-in',
        plan: { apiUrl: platform.apiUrl, token: platform.token, assistantId: platform.assistantId, opening: spoken.lines[0]!, interruption: spoken.interruption, rounds: bargeIns, afterMs: BARGE_IN_AFTER_MS },
      })
      : undefined;

    const recognizer = code === 'en' ? 'Whisper tiny.en' : 'Whisper base';
    console.log(`\none web call in ${code}, offline stack (Silero VAD, ${recognizer}, ${settings.synthesizer} voice ${settings.voiceId}), model first token after ${llmMs} ms; ` +
      `turn policy ${settings.endpointType}, sensitivity ${settings.endpointSensitivity}`);
    console.log('felt = caller\'s end of speech → first reply frame received (caller side); engine = the stored end_of_speech_to_first_audio_ms (VAD end of speech → first frame sent)');
    console.log('wait = the policy\'s silence; stt = end of speech → words (includes the VAD\'s 200 ms); rest = felt − max(wait, stt) − llm − tts\n');
    console.log('turn | felt | engine | wait | stt | llm | tts | rest | heard');
    const rests: number[] = [];
    turns.forEach((turn, index) => {
      const { metrics } = turn;
      const rest = turn.feltMs - Math.max(turn.endpointMs, metrics.stt_final_delay_ms ?? 0) - (metrics.llm_first_token_ms ?? 0) - (metrics.tts_first_byte_ms ?? 0);
      rests.push(rest);
      console.log([String(index + 1).padStart(4), ms(turn.feltMs).padStart(4), ms(metrics.end_of_speech_to_first_audio_ms).padStart(6), ms(turn.endpointMs).padStart(4),
        ms(metrics.stt_final_delay_ms).padStart(3), ms(metrics.llm_first_token_ms).padStart(3), ms(metrics.tts_first_byte_ms).padStart(3), ms(rest).padStart(4), turn.heard].join(' | '));
    });
    if (unmatched > 0) console.log(`(${unmatched} call(s) left out: their stored turns did not line up with the lines said)`);
    const greetings = measured.flatMap((result) => (result.greetingMs === undefined ? [] : [result.greetingMs]));
    console.log(`\nfelt p50 / p95: ${spread(turns.map((turn) => turn.feltMs))} (Pipecat 1.14, English on Piper, same machine: 1191 / 1275 ms; target p50 <= 600 ms)`);
    console.log(`engine end_of_speech_to_first_audio_ms p50 / p95: ${spread(turns.map((turn) => turn.metrics.end_of_speech_to_first_audio_ms ?? Number.NaN))}`);
    console.log(`stt p50 / p95: ${spread(turns.map((turn) => turn.metrics.stt_final_delay_ms ?? Number.NaN))}; ` +
      `llm: ${spread(turns.map((turn) => turn.metrics.llm_first_token_ms ?? Number.NaN))}; tts: ${spread(turns.map((turn) => turn.metrics.tts_first_byte_ms ?? Number.NaN))}; rest: ${spread(rests)}`);
    console.log(`answer → first greeting audio: ${spread(greetings)} warm; ${ms(cold?.greetingMs)} ms cold (first call: Whisper and the voice start on first use)`);
    if (bargeIn) {
      const { rounds } = bargeIn;
      console.log(`\nbarge-in, ${rounds.length} rounds, interrupt_sensitivity ${settings.interruptSensitivity}: the caller speaks over a reply that has played ${BARGE_IN_AFTER_MS} ms; ` +
        'onset = its first voiced frame sent (target: stop within 200 ms)');
      console.log(`onset → clear received p50 / p95 / max: ${spreadToMax(rounds.map((round) => round.clearMs))}`);
      console.log(`onset → last reply frame received before the clear p50 / p95 / max: ${spreadToMax(rounds.map((round) => round.lastFrameMs))}`);
      console.log(`rounds (clear / last frame, ms): ${rounds.map((round) => `${ms(round.clearMs)} / ${ms(round.lastFrameMs)}`).join(', ')}; ` +
        `reply frames after the clear while the caller spoke: ${rounds.reduce((sum, round) => sum + round.framesAfterClear, 0)}`);
    }
    return turns.map((turn) => turn.feltMs);
  } finally {
    await platform.close();
  }
}

const p50 = (list: number[]) => percentile([...list].sort((a, b) => a - b), 50);
if (language === 'en') {
  await measure('en', (voice) => /piper/i.test(voice.name), true);
} else {
  // The baseline on the same footing: the same synthesizer (eSpeak), English heard by tiny.en.
  const english = await measure('en', (voice) => /^English .*eSpeak/.test(voice.name), false);
  const other = await measure(language, (voice) => /eSpeak/.test(voice.name), true);
  const difference = p50(other) - p50(english);
  console.log(`\nfelt p50 ${language} ${p50(other).toFixed(0)} ms − en ${p50(english).toFixed(0)} ms (both eSpeak, same run) = ${difference >= 0 ? '+' : ''}${difference.toFixed(0)} ms (target: within 150 ms)`);
}
console.log(`machine load average ${os.loadavg()[0]!.toFixed(1)} on ${os.availableParallelism()} cores`);
