/**
 * Latency of one web call on the embedded default stack (Silero VAD, Whisper tiny.en, Piper joe), the whole
 * platform in this process, with the fake language model answering its first token after a fixed delay. A
 * scripted caller in a child process speaks espeak-ng lines, one per turn. Per turn it prints the latency the
 * caller felt (its end of speech → the first reply audio frame it received) and the shares the stored turn
 * metrics give: the turn policy's silence, the recognizer's words, the model's first token, the synthesizer's
 * first audio, and the rest (the platform's own time, including where the VAD placed the end of speech).
 * A first call warms the models up (its greeting is the cold start); the second is measured.
 *
 *   npm run bench:voice-latency -- [--llm-ms 250] [--rounds 1] [--endpoint vad|ai] [--sensitivity 0.5]
 * The turn policy is the assistant's (`endpoint_type`, `endpoint_sensitivity`; the defaults are vad and 0.5).
 * Pipecat 1.14 on the same stack and machine: p50 1191 ms, p95 1275 ms at one call (notes/speech-offline.md).
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { loadVoiceSettings } from '../src/resources/assistants/voice-profile.ts';
import { startBenchPlatform } from './voice/platform.ts';
import type { CallPlan, CallResult, RunReply } from './voice/protocol.ts';
import { matchTurns, ms, spread } from './voice/turns.ts';

const { values } = parseArgs({
  options: {
    'llm-ms': { type: 'string', default: '250' },
    rounds: { type: 'string', default: '1' },
    endpoint: { type: 'string', default: 'vad' },
    sensitivity: { type: 'string', default: '0.5' },
  },
});
const llmMs = Number(values['llm-ms']);
const lines = [
  'I would like to book an appointment for Tuesday at three.',
  'Could you tell me when the office opens tomorrow morning?',
  'My account number is four five six seven.',
  'Can I pay by credit card when I arrive?',
  'Please send the confirmation to my email address.',
];

const platform = await startBenchPlatform({
  delays: { llmMs, sttResultMs: 0, ttsFirstByteMs: 0, reply: 'Sure, I can help with that. Is there anything else you need today?', heard: '' },
  env: () => ({ STT_PROVIDER: 'local', TTS_PROVIDER: 'local' }),
  voice: (voice) => /piper/i.test(voice.name),
  assistant: { endpoint_type: values.endpoint, endpoint_sensitivity: Number(values.sensitivity) },
});
try {
  const settings = await loadVoiceSettings(platform.running.database.knex, { id: platform.assistantId });
  if (!settings) throw new Error('the assistant has no voice settings');
  const plan = (maxTurns: number): CallPlan => ({
    apiUrl: platform.apiUrl, token: platform.token, assistantId: platform.assistantId, calls: 1, rampMs: 0,
    durationMs: 10 * 60_000, maxTurns, pauseMs: [600, 600], lines,
  });
  const run = async (maxTurns: number) => {
    const { results } = await platform.ask<RunReply>({ type: 'run', plan: plan(maxTurns) });
    for (const result of results) if (result.error) throw new Error(`call ${result.callId}: ${result.error}`);
    return results;
  };
  const [cold] = await run(1);
  const measured: CallResult[] = [];
  for (let round = 0; round < Number(values.rounds); round++) measured.push(...await run(lines.length));
  // Turns are stored as they commit; the last one may still be on its way.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const { turns, unmatched } = matchTurns(measured, await platform.turnsOf(measured.map((result) => result.callId)), settings);

  console.log(`one web call, offline stack (Silero VAD, Whisper tiny.en, Piper), model first token after ${llmMs} ms; ` +
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
  console.log(`\nfelt p50 / p95: ${spread(turns.map((turn) => turn.feltMs))} (Pipecat 1.14, same stack and machine: 1191 / 1275 ms; target p50 <= 600 ms)`);
  console.log(`engine end_of_speech_to_first_audio_ms p50 / p95: ${spread(turns.map((turn) => turn.metrics.end_of_speech_to_first_audio_ms ?? Number.NaN))}`);
  console.log(`stt p50 / p95: ${spread(turns.map((turn) => turn.metrics.stt_final_delay_ms ?? Number.NaN))}; ` +
    `llm: ${spread(turns.map((turn) => turn.metrics.llm_first_token_ms ?? Number.NaN))}; tts: ${spread(turns.map((turn) => turn.metrics.tts_first_byte_ms ?? Number.NaN))}; rest: ${spread(rests)}`);
  console.log(`answer → first greeting audio: ${spread(greetings)} warm; ${ms(cold?.greetingMs)} ms cold (first call: Whisper and Piper start on first use)`);
  console.log(`machine load average ${os.loadavg()[0]!.toFixed(1)} on ${os.availableParallelism()} cores`);
} finally {
  await platform.close();
}
