/**
 * The offline speech stack on this machine (scripts/install-speech.sh first): each voice's time to the first
 * chunk and real-time factor (synthesis wall time / audio duration) on its language's phone sentences, Silero
 * VAD CPU per 20 ms frame (alone and batched across calls), and per language the recognizer's word error rate
 * and CPU per utterance on phone audio (8 kHz μ-law): English with Whisper tiny.en (and base beside it, the
 * same sentences, as the baseline of the other languages' model), German, Spanish and French with Whisper
 * base, each told the language. Callers: Piper's Joe and espeak-ng for English; for each other language
 * espeak-ng's voice (robotic: no registry package ships a Piper voice of them) and, when
 * scripts/install-bench-voices.sh has installed it, Kokoro-82M's (bench/speech/kokoro.ts; German read by its
 * Spanish and French voices, with their accent). Medians over the sentences.
 *
 *   npm run bench:speech-local -- [--rounds 3] [--languages en,de,es,fr]
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { WHISPER_BASE, WHISPER_TINY_EN } from '../src/providers/stt/whisper-languages.ts';
import { createEspeakTts } from '../src/providers/tts/espeak.ts';
import { createPiperTts } from '../src/providers/tts/piper.ts';
import type { TextToSpeech } from '../src/providers/tts/types.ts';
import { SileroStreams } from '../src/providers/vad/silero-streams.ts';
import { Resampler } from '../src/lib/audio/resampler.ts';
import { percentile } from './percentile.ts';
import { Kokoro, KOKORO_CALLERS, type KokoroCaller } from './speech/kokoro.ts';
import { PHONE_SENTENCES } from './speech/phone-sentences.ts';
import { overPhoneLine, recognitionLine, recognize, RECOGNITION_HEADER, type RecognitionResult } from './speech/recognition.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, languages: { type: 'string', default: 'en,de,es,fr' } } });
const rounds = Number(values.rounds);
const languages = values.languages.split(',').map((code) => code.trim()).filter((code) => PHONE_SENTENCES[code]);
const speechDir = loadConfig().speech.dir;
const logger = createLogger({ log: { level: 'warn', pretty: false } });
const benchVoicesDir = path.join(process.env.BENCH_VOICES_DIR ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '.tools-bench'), 'kokoro');

const median = (list: number[]) => percentile([...list].sort((a, b) => a - b), 50);
const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};
const fixed = (value: number, digits = 1) => value.toFixed(digits);

interface Synthesis { firstChunkMs: number; wallMs: number; cpuMs: number; audioMs: number; audio: Int16Array; sampleRate: number }

async function synthesize(tts: TextToSpeech, voice: string, text: string, language = 'en'): Promise<Synthesis> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const speech = tts.synthesize({ text, voice, language, speed: 1, signal: new AbortController().signal });
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

async function benchTts(name: string, tts: TextToSpeech, voice: string, language = 'en'): Promise<Synthesis[]> {
  const said = PHONE_SENTENCES[language]!;
  await synthesize(tts, voice, said[3]!, language);
  const results: Synthesis[] = [];
  for (let round = 0; round < rounds; round++) for (const text of said) results.push(await synthesize(tts, voice, text, language));
  console.log(
    `${name.padEnd(16)} first chunk p50 ${fixed(median(results.map((r) => r.firstChunkMs))).padStart(6)} ms, ` +
    `first sentence ${fixed(median(results.filter((_, i) => i % said.length === 0).map((r) => r.wallMs))).padStart(6)} ms, ` +
    `RTF p50 ${fixed(median(results.map((r) => r.wallMs / r.audioMs)), 3)} (wall), ` +
    `${fixed(median(results.map((r) => r.cpuMs / r.audioMs)), 3)} (process CPU)`,
  );
  return results.slice(0, said.length);
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

/** The phone sentences of `language` spoken by a caller voice, put through the line. */
async function callerSays(tts: TextToSpeech, voice: string, language: string): Promise<{ text: string; audio: Int16Array }[]> {
  const said = PHONE_SENTENCES[language]!;
  return Promise.all(said.map(async (text) => ({ text, audio: overPhoneLine(await synthesize(tts, voice, text, language)) })));
}

/**
 * The phone sentences of `language` spoken by a Kokoro caller, put through the line; prints the synthesis's
 * real-time factor and CPU per utterance (one thread).
 */
async function kokoroSays(kokoro: Kokoro, caller: KokoroCaller, language: string): Promise<{ text: string; audio: Int16Array }[]> {
  const spoken = [];
  const rtf: number[] = [];
  const cpu: number[] = [];
  for (const text of PHONE_SENTENCES[language]!) {
    const started = performance.now();
    const usage = process.cpuUsage();
    const speech = await kokoro.speak(text, caller.voice, caller.espeakVoice);
    const audioMs = (speech.audio.length / speech.sampleRate) * 1000;
    cpu.push(cpuMs(usage));
    rtf.push((performance.now() - started) / audioMs);
    spoken.push({ text, audio: overPhoneLine(speech) });
  }
  console.log(`${`${caller.label} (${language})`.padEnd(30)} synthesis RTF p50 ${fixed(median(rtf), 2)} (wall), CPU p50 ${fixed(median(cpu), 0)} ms per sentence`);
  return spoken;
}

async function benchRecognition(piper: TextToSpeech, espeak: TextToSpeech, kokoro: Kokoro | undefined): Promise<void> {
  const results: RecognitionResult[] = [];
  const run = async (language: string, model: string, voice: string, spoken: { text: string; audio: Int16Array }[]) => {
    results.push(await recognize({ speechDir, model, language, voice, rounds }, spoken));
  };
  for (const language of languages) {
    if (language === 'en') {
      const joe = await callerSays(piper, 'en_US-joe-medium', 'en');
      await run('en', WHISPER_TINY_EN, 'Piper joe', joe);
      await run('en', WHISPER_BASE, 'Piper joe', joe);
      await run('en', WHISPER_TINY_EN, 'espeak en-us', await callerSays(espeak, 'en-us', 'en'));
      await run('en', WHISPER_BASE, 'espeak en-us', await callerSays(espeak, 'en-us', 'en'));
    } else {
      await run(language, WHISPER_BASE, `espeak ${language}`, await callerSays(espeak, language, language));
      if (kokoro) for (const caller of KOKORO_CALLERS[language] ?? []) await run(language, WHISPER_BASE, caller.label, await kokoroSays(kokoro, caller, language));
    }
  }
  console.log(`\nrecognition on phone audio (8 kHz μ-law → 16 kHz), one worker, one thread, ${rounds} rounds; CPU and wall per utterance`);
  console.log(RECOGNITION_HEADER);
  for (const result of results) console.log(recognitionLine(result));
  console.log('\nas heard (first round):');
  for (const result of results) {
    for (const { said, heard, errors } of result.heard) console.log(`  ${result.language} ${result.model} ${result.voice}: ${errors} | "${said}" → "${heard}"`);
  }
}

console.log(`offline speech stack in ${speechDir}, ${rounds} rounds, languages ${languages.join(', ')} (Node ${process.version})`);
const piper = createPiperTts({ voicesDir: path.join(speechDir, 'piper'), instances: 1, logger });
const loadStarted = performance.now();
await synthesize(piper, 'en_US-joe-medium', 'Hi.');
console.log(`Piper voice loaded and first word in ${fixed(performance.now() - loadStarted, 0)} ms`);
const piperSpeech = await benchTts('Piper joe (en)', piper, 'en_US-joe-medium');
const espeak = createEspeakTts();
for (const language of languages) await benchTts(`espeak ${language === 'en' ? 'en-us' : language}+m3 (${language})`, espeak, `${language === 'en' ? 'en-us' : language}+m3`, language);
const utterances = piperSpeech.map(to16k);
await benchVad(utterances[0] as Int16Array);
const kokoro = languages.some((language) => KOKORO_CALLERS[language]) ? await Kokoro.load(benchVoicesDir) : undefined;
if (kokoro) console.log(`\nKokoro-82M callers from ${benchVoicesDir} (one thread; bench audio only, slower than real time)`);
else if (languages.some((language) => KOKORO_CALLERS[language])) {
  console.log(`\nno Kokoro callers in ${benchVoicesDir} (bash scripts/install-bench-voices.sh): German, Spanish and French are heard from espeak-ng only`);
}
await benchRecognition(piper, espeak, kokoro);
await kokoro?.release();
piper.close();
