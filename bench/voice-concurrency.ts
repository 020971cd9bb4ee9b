/**
 * N simultaneous web calls, on one of two stacks:
 * - hosted (the default): providers faked at fixed delays: Deepgram (live transcription, a fixed delay on each
 *   result), OpenAI speech (a fixed delay before the first audio byte) and the language model (a fixed delay
 *   before its first token); MEDIA_MAX_CALLS is lifted;
 * - offline: Silero VAD, Whisper tiny.en, Smart Turn and the Piper voice on this machine, the model faked;
 *   MEDIA_MAX_CALLS is this replica's default, so a level above it shows the calls refused (the figure the
 *   README states is the one this bench holds).
 * The account is on a plan of its own without a concurrent-call limit. The whole platform runs in this process (api, worker, media, PGlite;
 * the Temporal dev server is a process of its own); the callers and the fakes run in a child process, so
 * their timers and work never share the platform's event loop or its CPU and memory figures.
 *
 * Per N it prints:
 * - added: the platform's own latency per turn: the caller's felt latency (end of speech → first reply frame
 *   received) minus what the turn had to wait for: the later of the turn policy's decision (stored) and the
 *   recognizer's final words (stored) plus the model's first token and the synthesizer's first byte (fixed in
 *   the fakes); a build that does not draft replies waits for the decision, then the model, then the voice;
 * - jitter: |spacing − 20 ms| of reply frames as the caller received them, past each reply's first burst;
 * - CPU of this process (all its threads) over the level's wall time, and RSS per call: the level's peak
 *   RSS above the idle baseline measured after a warm-up in the same run, divided by N.
 * Each level is preceded by a short unmeasured pass at the same N (one greeting and one line per call), so
 * the level measures a replica that has held N calls before: its heap, socket buffers and connection pools
 * grown to that size, as on a replica in service.
 * Target: added p95 <= 50 ms, jitter p99 <= 20 ms, <= 10 MB per call.
 *
 *   npm run bench:voice-concurrency -- [--stack hosted|offline] [--calls 10,25,50,100] [--seconds 30] [--llm-ms 200] [--stt-ms 100] [--tts-ms 150]
 * On the offline stack the added latency leaves the recognizer and the synthesizer in (they are the load);
 * its figure is the felt p95 (issue 29: at most 1.5 s at 8 calls on two cores).
 */
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { loadVoiceSettings } from '../src/resources/assistants/voice-profile.ts';
import { percentile } from './percentile.ts';
import { startBenchPlatform } from './voice/platform.ts';
import type { CallerLine, CallPlan, RunReply } from './voice/protocol.ts';
import { matchTurns, spread, type MeasuredTurn } from './voice/turns.ts';

const { values } = parseArgs({
  options: {
    stack: { type: 'string', default: 'hosted' },
    calls: { type: 'string', default: '10,25,50,100' },
    seconds: { type: 'string', default: '30' },
    'llm-ms': { type: 'string', default: '200' },
    'stt-ms': { type: 'string', default: '100' },
    'tts-ms': { type: 'string', default: '150' },
  },
});
const levels = values.calls.split(',').map(Number);
const delays = {
  llmMs: Number(values['llm-ms']),
  sttResultMs: Number(values['stt-ms']),
  ttsFirstByteMs: Number(values['tts-ms']),
  reply: 'Sure, I can help with that. Is there anything else?',
  heard: 'I would like to book an appointment for Tuesday at three.',
};
const offline = values.stack === 'offline';
const lines: CallerLine[] = [
  { text: 'I would like to book an appointment for Tuesday at three.', voice: 'espeak' },
  { text: 'Could you tell me when the office opens tomorrow morning?', voice: 'piper' },
];
const TARGET = { addedP95Ms: 50, jitterP99Ms: 20, mbPerCall: 10, offlineFeltP95Ms: 1500 };
const MB = 1024 * 1024;

const platform = await startBenchPlatform(offline
  ? { delays: { ...delays, sttResultMs: 0, ttsFirstByteMs: 0 }, env: () => ({ STT_PROVIDER: 'local', TTS_PROVIDER: 'local' }), voice: (voice) => /piper/i.test(voice.name) }
  : {
    delays,
    env: (urls) => ({
      STT_PROVIDER: 'deepgram', DEEPGRAM_URL: urls.deepgram, DEEPGRAM_API_KEY: urls.deepgramKey,
      TTS_PROVIDER: 'openai', OPENAI_TTS_BASE_URL: urls.openaiSpeech, OPENAI_TTS_API_KEY: urls.openaiKey,
      MEDIA_MAX_CALLS: '10000',
    }),
    voice: (voice) => /\(OpenAI\)$/.test(voice.name),
  });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

try {
  const settings = await loadVoiceSettings(platform.running.database.knex, { id: platform.assistantId });
  if (!settings) throw new Error('the assistant has no voice settings');
  const plan = (calls: number, seconds: number): CallPlan => ({
    apiUrl: platform.apiUrl, token: platform.token, assistantId: platform.assistantId, calls,
    rampMs: Math.min(5000, calls * 50), durationMs: seconds * 1000, maxTurns: 1000, pauseMs: [300, 900], lines,
  });
  const run = (calls: number, seconds: number) => platform.ask<RunReply>({ type: 'run', plan: plan(calls, seconds) });

  await run(2, 5);
  await sleep(3000);
  const idleRss = process.memoryUsage().rss;
  console.log(`${offline ? `offline stack (MEDIA_MAX_CALLS ${platform.mediaMaxCalls})` : `hosted providers faked: Deepgram results +${delays.sttResultMs} ms, OpenAI speech first byte ${delays.ttsFirstByteMs} ms`}; model first token ${delays.llmMs} ms; ` +
    `turn policy ${settings.endpointType} ${settings.endpointSensitivity}; ${values.seconds} s per level; idle RSS after a warm-up ${(idleRss / MB).toFixed(0)} MB`);
  console.log('CPU and RSS are of the platform process (api, worker, media, PGlite; not the Temporal dev server, callers or fakes)');
  console.log('calls | turns | failed | added p50 / p95 | felt p50 / p95 | engine p50 / p95 | jitter p99 / max | CPU (% of a core) | RSS/call | target');
  let largest: number | undefined;
  for (const calls of levels) {
    // A short pass at N first: the level measures a replica whose heap and pools have held N calls before.
    await run(calls, 1);
    await sleep(2000);
    const cpuBefore = process.cpuUsage();
    const startedAt = performance.now();
    let peakRss = process.memoryUsage().rss;
    const sampler = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage().rss); }, 500);
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const { results, cpuMs: callersCpuMs, wallMs: callersWallMs } = await run(calls, Number(values.seconds));
    clearInterval(sampler);
    loopDelay.disable();
    const cpu = process.cpuUsage(cpuBefore);
    const wallMs = performance.now() - startedAt;
    await sleep(1000);
    const { turns } = matchTurns(results, await platform.turnsOf(results.map((result) => result.callId)), settings);
    const ttsMs = offline ? 0 : delays.ttsFirstByteMs;
    const added = turns.map(({ feltMs, endpointMs, metrics }) => (metrics.preemptive === undefined
      ? feltMs - endpointMs - delays.llmMs - ttsMs
      : feltMs - Math.max(endpointMs, (metrics.stt_final_delay_ms ?? 0) + delays.llmMs + ttsMs)));
    const jitter = results.flatMap((result) => result.jitterMs).sort((a, b) => a - b);
    const failed = results.filter((result) => result.error).length;
    const mbPerCall = (peakRss - idleRss) / MB / calls;
    const addedP95 = percentile([...added].sort((a, b) => a - b), 95);
    const jitterP99 = percentile(jitter, 99);
    const feltP95 = percentile(turns.map((turn) => turn.feltMs).sort((a, b) => a - b), 95);
    const holds = failed === 0 && (offline ? feltP95 <= TARGET.offlineFeltP95Ms : addedP95 <= TARGET.addedP95Ms && jitterP99 <= TARGET.jitterP99Ms && mbPerCall <= TARGET.mbPerCall);
    if (holds && (largest === undefined || calls > largest)) largest = calls;
    console.log([
      String(calls).padStart(5), String(turns.length).padStart(5), String(failed).padStart(6), spread(added).padStart(15),
      spread(turns.map((turn) => turn.feltMs)).padStart(15), spread(turns.map((turn) => turn.metrics.end_of_speech_to_first_audio_ms ?? Number.NaN)).padStart(16),
      `${jitterP99.toFixed(1)} / ${(jitter.at(-1) ?? Number.NaN).toFixed(0)} ms`.padStart(16),
      `${(((cpu.user + cpu.system) / 1000 / wallMs) * 100).toFixed(0)} %`.padStart(17), `${mbPerCall.toFixed(1)} MB`.padStart(8), holds ? 'holds' : 'misses',
    ].join(' | '));
    const shares = (pick: (metrics: MeasuredTurn['metrics']) => number | undefined) => spread(turns.map((turn) => pick(turn.metrics) ?? Number.NaN));
    console.log(`      stored: stt ${shares((m) => m.stt_final_delay_ms)}, llm ${shares((m) => m.llm_first_token_ms)}, tts ${shares((m) => m.tts_first_byte_ms)}; ` +
      `felt − engine ${spread(turns.map((turn) => turn.feltMs - (turn.metrics.end_of_speech_to_first_audio_ms ?? Number.NaN)))}; ` +
      `platform event loop delay p50 / p99 / max ${(loopDelay.percentile(50) / 1e6).toFixed(0)} / ${(loopDelay.percentile(99) / 1e6).toFixed(0)} / ${(loopDelay.max / 1e6).toFixed(0)} ms; ` +
      `callers and fakes ${((callersCpuMs / callersWallMs) * 100).toFixed(0)} % of a core; machine load average ${os.loadavg()[0]!.toFixed(1)} on ${os.availableParallelism()} cores`);
    for (const result of results.filter((entry) => entry.error).slice(0, 3)) console.log(`      call ${result.callId}: ${result.error}`);
    await sleep(2000);
  }
  console.log(`largest N that holds the target (${offline ? `every call served, felt p95 <= ${TARGET.offlineFeltP95Ms} ms` : `added p95 <= ${TARGET.addedP95Ms} ms, jitter p99 <= ${TARGET.jitterP99Ms} ms, <= ${TARGET.mbPerCall} MB per call`}): ${largest ?? 'none'}`);
} finally {
  await platform.close();
}
