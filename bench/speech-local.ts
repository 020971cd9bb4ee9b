/**
 * The offline speech stack on this machine (scripts/install-speech.sh first): Silero VAD CPU per 20 ms frame
 * (alone and batched across calls),
 * Whisper tiny.en CPU and wall time per utterance in one worker, and Piper and espeak-ng time to the first
 * chunk and real-time factor (synthesis wall time / audio duration) per sentence. Medians over the sentences.
 *
 *   npm run bench:speech-local -- [--rounds 3]
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { WhisperProcess } from '../src/providers/stt/whisper-process.ts';
import { createEspeakTts } from '../src/providers/tts/espeak.ts';
import { createPiperTts } from '../src/providers/tts/piper.ts';
import type { TextToSpeech } from '../src/providers/tts/types.ts';
import { SileroStreams } from '../src/providers/vad/silero-streams.ts';
import { Resampler } from '../src/lib/audio/resampler.ts';
import { percentile } from './percentile.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' } } });
const rounds = Number(values.rounds);
const speechDir = loadConfig().speech.dir;
const logger = createLogger({ log: { level: 'warn', pretty: false } });

const sentences = [
  'Thanks for calling, your appointment is now confirmed for Tuesday at three.',
  'I would like to book an appointment for Tuesday at three.',
  'Could you tell me when the office opens tomorrow morning?',
  'Sure.',
  'My account number is four five six seven, and I moved last month.',
];

const median = (list: number[]) => percentile([...list].sort((a, b) => a - b), 50);
const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};
const fixed = (value: number, digits = 1) => value.toFixed(digits);

interface Synthesis { firstChunkMs: number; wallMs: number; cpuMs: number; audioMs: number; audio: Int16Array; sampleRate: number }

async function synthesize(tts: TextToSpeech, voice: string, text: string): Promise<Synthesis> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const speech = tts.synthesize({ text, voice, language: 'en-US', speed: 1, signal: new AbortController().signal });
  let firstChunkMs = 0;
  const parts: Int16Array[] = [];
  for await (const chunk of speech.chunks) {
    firstChunkMs ||= performance.now() - started;
    parts.push(chunk);
  }
  const wallMs = performance.now() - started;
  const audio = new Int16Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    audio.set(part, at);
    at += part.length;
  }
  return { firstChunkMs, wallMs, cpuMs: cpuMs(cpu), audioMs: (audio.length / speech.sampleRate) * 1000, audio, sampleRate: speech.sampleRate };
}

async function benchTts(name: string, tts: TextToSpeech, voice: string): Promise<Synthesis[]> {
  await synthesize(tts, voice, 'Warm up.');
  const results: Synthesis[] = [];
  for (let round = 0; round < rounds; round++) for (const text of sentences) results.push(await synthesize(tts, voice, text));
  console.log(
    `${name.padEnd(8)} first chunk p50 ${fixed(median(results.map((r) => r.firstChunkMs)))} ms, ` +
    `12-word sentence ${fixed(median(results.filter((_, i) => i % sentences.length === 0).map((r) => r.wallMs)))} ms, ` +
    `RTF p50 ${fixed(median(results.map((r) => r.wallMs / r.audioMs)), 3)} (wall), ` +
    `${fixed(median(results.map((r) => r.cpuMs / r.audioMs)), 3)} (process CPU)`,
  );
  return results.slice(0, sentences.length);
}

function to16k(synthesis: Synthesis): Int16Array {
  const resampled = new Resampler(synthesis.sampleRate, 16000).process(synthesis.audio);
  const padded = new Int16Array(resampled.length + 6400);
  padded.set(resampled, 3200);
  return padded;
}

/**
 * Silero on one shared model: CPU per 20 ms frame of a call heard alone (a batch of one window) and of one
 * call among `calls` whose windows go through the model together, as the media role's VAD thread runs them.
 */
async function benchVad(audio: Int16Array, calls = [1, 10, 100]): Promise<void> {
  const loadedAt = performance.now();
  const silero = await SileroStreams.load(path.join(speechDir, 'silero_vad.onnx'));
  const loadMs = performance.now() - loadedAt;
  const vadOptions = { sampleRate: 16000, threshold: 0.5, minSpeechMs: 250, minSilenceMs: 400 };
  const frames = Math.floor(audio.length / 320);
  for (const n of calls) {
    const ids = Array.from({ length: n }, (_, i) => i + 1);
    ids.forEach((id) => silero.open(id, vadOptions));
    const cpu = process.cpuUsage();
    const started = performance.now();
    let events = 0;
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < frames; i++) {
        const samples = audio.subarray(i * 320, (i + 1) * 320);
        events += (await silero.hear(ids.map((id) => ({ id, samples, skipped: 0 })))).length;
      }
    }
    const pushed = frames * rounds * n;
    ids.forEach((id) => silero.close(id));
    console.log(
      `VAD      ${String(n).padStart(3)} calls: ${fixed((cpuMs(cpu) / pushed) * 1000)} µs CPU / ${fixed(((performance.now() - started) / pushed) * 1000)} µs wall per call's 20 ms frame ` +
      `(${fixed((cpuMs(cpu) / pushed / 20) * 100, 2)} % of a core per call), ${pushed} frames, ${events} events; model loaded in ${fixed(loadMs)} ms`,
    );
  }
  await silero.release();
}

async function benchWhisper(utterances: Int16Array[]): Promise<void> {
  const startedAt = performance.now();
  const worker = new WhisperProcess({
    python: path.join(speechDir, 'venv', 'bin', 'python'),
    script: path.join(path.dirname(fileURLToPath(import.meta.url)), '../src/providers/stt/whisper_worker.py'),
    modelDir: path.join(speechDir, 'whisper-tiny.en'),
    language: 'en',
    onExit: () => {},
  });
  await worker.ready;
  const startMs = performance.now() - startedAt;
  await worker.transcribe(utterances[0] as Int16Array);
  const walls: number[] = [];
  const cpus: number[] = [];
  const audioMs: number[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const [index, audio] of utterances.entries()) {
      const sent = performance.now();
      const reply = await worker.transcribe(audio);
      walls.push(performance.now() - sent);
      cpus.push(reply.cpu_ms);
      audioMs.push(reply.audio_ms);
      if (round === 0) console.log(`         "${sentences[index]}" → "${reply.text}" (${reply.frames} frames)`);
    }
  }
  await worker.stop();
  console.log(
    `Whisper  per utterance (${fixed(median(audioMs) / 1000)} s median audio): CPU p50 ${fixed(median(cpus))} ms, wall p50 ${fixed(median(walls))} ms ` +
    `(max ${fixed(Math.max(...walls))}); CPU RTF ${fixed(median(cpus.map((cpu, i) => cpu / (audioMs[i] as number))), 3)}; worker ready in ${fixed(startMs, 0)} ms`,
  );
}

console.log(`offline speech stack in ${speechDir}, ${rounds} rounds (Node ${process.version})`);
const piper = createPiperTts({ voicesDir: path.join(speechDir, 'piper'), instances: 1, logger });
const loadStarted = performance.now();
await synthesize(piper, 'en_US-joe-medium', 'Hi.');
console.log(`Piper    voice loaded and first word in ${fixed(performance.now() - loadStarted, 0)} ms`);
const piperSpeech = await benchTts('Piper', piper, 'en_US-joe-medium');
piper.close();
await benchTts('espeak', createEspeakTts(), 'en-us+m3');
const utterances = piperSpeech.map(to16k);
await benchVad(utterances[0] as Int16Array);
await benchWhisper(utterances);
