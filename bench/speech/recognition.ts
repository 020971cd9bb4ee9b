/**
 * The offline recognizer on phone audio: each language's phone sentences (phone-sentences.ts), spoken by a
 * caller voice, through a phone line (down to 8 kHz, μ-law both ways, back up to 16 kHz), into one worker of
 * the model that language is heard with. Word error rate over all words, and the worker's CPU per utterance.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { foldWords, languagePack } from '../../src/lib/languages/index.ts';
import { WhisperProcess } from '../../src/providers/stt/whisper-process.ts';
import { decodeMulaw, encodeMulaw } from '../../src/lib/audio/mulaw.ts';
import { Resampler } from '../../src/lib/audio/resampler.ts';
import { percentile } from '../percentile.ts';

export interface Speech { audio: Int16Array; sampleRate: number }

/** `speech` as a caller's phone line delivers it to the engine: 8 kHz μ-law, then 16 kHz, with 200 ms of line silence around it. */
export function overPhoneLine(speech: Speech): Int16Array {
  const narrow = new Resampler(speech.sampleRate, 8000).process(speech.audio);
  const heard = new Resampler(8000, 16000).process(decodeMulaw(encodeMulaw(narrow)));
  const padded = new Int16Array(heard.length + 6400);
  padded.set(heard, 3200);
  return padded;
}

/**
 * The words compared: numbers as the language's words ("3" is "three"; three digits or more, as a caller
 * reads an account number, digit by digit: "4567" is "four five six seven"), then folded (case, accents,
 * punctuation).
 */
function words(text: string, language: string): string[] {
  const { reading } = languagePack(language);
  const spelled = text.replace(/\d+/g, (digits) => ` ${(digits.length < 3 ? [digits] : [...digits]).map((part) => reading.cardinal(Number(part))).join(' ')} `);
  return foldWords(spelled).split(' ').filter(Boolean);
}

/** Word-level edit distance: substitutions, insertions and deletions. */
export function wordErrors(reference: string, hypothesis: string, language: string): { errors: number; words: number } {
  const ref = words(reference, language);
  const hyp = words(hypothesis, language);
  let row = Array.from({ length: hyp.length + 1 }, (_, index) => index);
  for (let i = 1; i <= ref.length; i++) {
    const next = [i];
    for (let j = 1; j <= hyp.length; j++) {
      next[j] = Math.min((row[j] as number) + 1, (next[j - 1] as number) + 1, (row[j - 1] as number) + (ref[i - 1] === hyp[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return { errors: row[hyp.length] as number, words: ref.length };
}

export interface RecognitionResult {
  language: string;
  model: string;
  voice: string;
  utterances: number;
  wer: number;
  cpuMs: number[];
  wallMs: number[];
  audioMs: number[];
  startMs: number;
  /** Each sentence as heard, in the first round. */
  heard: { said: string; heard: string; errors: number }[];
}

const workerScript = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../src/providers/stt/whisper_worker.py');

/** One worker of `model` hears `sentences` (already spoken and put through the line) `rounds` times. */
export async function recognize(
  options: { speechDir: string; model: string; language: string; voice: string; rounds: number },
  sentences: { text: string; audio: Int16Array }[],
): Promise<RecognitionResult> {
  const started = performance.now();
  const worker = new WhisperProcess({
    python: path.join(options.speechDir, 'venv', 'bin', 'python'), script: workerScript, modelDir: path.join(options.speechDir, options.model),
    language: options.language, onExit: () => {},
  });
  await worker.ready;
  const startMs = performance.now() - started;
  await worker.transcribe(sentences[0]!.audio);
  const result: RecognitionResult = {
    language: options.language, model: options.model, voice: options.voice, utterances: 0, wer: 0, cpuMs: [], wallMs: [], audioMs: [], startMs, heard: [],
  };
  let errors = 0;
  let total = 0;
  for (let round = 0; round < options.rounds; round++) {
    for (const sentence of sentences) {
      const sent = performance.now();
      const reply = await worker.transcribe(sentence.audio);
      result.wallMs.push(performance.now() - sent);
      result.cpuMs.push(reply.cpu_ms);
      result.audioMs.push(reply.audio_ms);
      const scored = wordErrors(sentence.text, reply.text, options.language);
      errors += scored.errors;
      total += scored.words;
      result.utterances++;
      if (round === 0) result.heard.push({ said: sentence.text, heard: reply.text, errors: scored.errors });
    }
  }
  await worker.stop();
  result.wer = total === 0 ? 0 : errors / total;
  return result;
}

const p = (list: number[], at: number) => percentile([...list].sort((a, b) => a - b), at);

/** One line of the table: language, model, caller voice, WER, CPU and wall time per utterance. */
export function recognitionLine(result: RecognitionResult): string {
  return [
    result.language.padEnd(2), result.model.padEnd(15), result.voice.padEnd(25), String(result.utterances).padStart(3),
    `${(result.wer * 100).toFixed(1).padStart(5)} %`,
    `${p(result.cpuMs, 50).toFixed(0).padStart(4)} / ${p(result.cpuMs, 95).toFixed(0).padStart(4)} ms`,
    `${p(result.wallMs, 50).toFixed(0).padStart(4)} ms`,
    `${(p(result.audioMs, 50) / 1000).toFixed(1)} s`,
    `${result.startMs.toFixed(0)} ms`,
  ].join(' | ');
}

export const RECOGNITION_HEADER = 'la | model           | caller voice              | utt |   WER   | CPU p50 / p95  | wall p50 | audio p50 | worker start';
