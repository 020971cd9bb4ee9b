/**
 * What the benchmarks' callers say, made before the calls: a line spoken by espeak-ng or by the Piper voice, as
 * PCM16 at 16 kHz, cut right after its last loud frame (the call's silence follows on its own). A line may hold
 * a pause in the middle of a thought, marked `|` where it falls: the whole line is spoken in one go (so the
 * voice keeps the rise of an unfinished thought, as a person's does), and the gap the voice left at the mark
 * (the punctuation before it makes one) is stretched to the pause asked for.
 */
import path from 'node:path';
import { Resampler } from '../../src/lib/audio/resampler.ts';
import { createLogger } from '../../src/logger.ts';
import { createPiperTts, defaultPiperVoice, type PiperTts } from '../../src/providers/tts/piper.ts';
import { spokenPcm } from '../../test/support/speech.ts';

export type CallerVoice = 'espeak' | 'piper';

export interface CallerLine {
  /** What is said; `|` marks the pause in the middle of a thought. */
  text: string;
  voice: CallerVoice;
  /** The length of the pause at `|`. */
  pauseMs?: number;
  /** espeak-ng's voice for the line (`de` for German); its American English by default. Piper speaks English only. */
  espeakVoice?: string;
}

const FRAME_SAMPLES = 320;
/** A sample louder than this is speech, for finding where a spoken line ends. */
const SPEECH_LEVEL = 300;
/** 10 ms stretches quieter than this (RMS) are the gaps between words. */
const GAP_LEVEL = 250;

let piper: PiperTts | undefined;

/** The words said, without the pause mark. */
export function spokenText(line: CallerLine): string {
  return line.text.replace(/\s*\|\s*/g, ' ').trim();
}

async function speak(text: string, voice: CallerVoice, espeakVoice: string | undefined): Promise<Int16Array> {
  if (voice === 'espeak') return spokenPcm(text, { silenceMs: 100, ...(espeakVoice ? { voice: espeakVoice } : {}) });
  piper ??= createPiperTts({ voicesDir: path.resolve(process.env.SPEECH_DIR ?? '.tools/speech', 'piper'), instances: 1, logger: createLogger({ log: { level: 'silent', pretty: false } }) });
  const speech = piper.synthesize({ text, voice: defaultPiperVoice, language: 'en-US', speed: 1, signal: new AbortController().signal });
  const resampler = new Resampler(speech.sampleRate, 16000);
  const parts: Int16Array[] = [new Int16Array(1600)];
  for await (const chunk of speech.chunks) parts.push(resampler.process(chunk));
  return join(parts);
}

function join(parts: Int16Array[]): Int16Array {
  const joined = new Int16Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}

/** Where the quiet stretches of `samples` are: [start, end) in samples, 10 ms steps. */
function gaps(samples: Int16Array): [number, number][] {
  const step = 160;
  const found: [number, number][] = [];
  let start: number | undefined;
  for (let at = 0; at + step <= samples.length; at += step) {
    let sum = 0;
    for (let i = at; i < at + step; i++) sum += samples[i]! ** 2;
    const quiet = Math.sqrt(sum / step) < GAP_LEVEL;
    if (quiet) start ??= at;
    else if (start !== undefined) {
      found.push([start, at]);
      start = undefined;
    }
  }
  return found;
}

/** The line as the caller says it. */
export async function callerAudio(line: CallerLine): Promise<Int16Array> {
  let samples = await speak(spokenText(line), line.voice, line.espeakVoice);
  const mark = line.text.indexOf('|');
  if (mark >= 0 && line.pauseMs !== undefined) {
    // The gap nearest where the mark falls in the text, between the first and the last word.
    const share = line.text.slice(0, mark).replace(/\s+$/, '').length / spokenText(line).length;
    const inner = gaps(samples).filter(([start, end]) => start > 3200 && end < samples.length - 3200);
    const gap = inner.sort((a, b) => Math.abs((a[0] + a[1]) / 2 / samples.length - share) - Math.abs((b[0] + b[1]) / 2 / samples.length - share))[0];
    if (!gap) throw new Error(`no pause in "${line.text}" spoken by ${line.voice}`);
    samples = join([samples.subarray(0, gap[0]), new Int16Array((line.pauseMs * 16000) / 1000), samples.subarray(gap[1])]);
  }
  let last = samples.length - 1;
  while (last > 0 && Math.abs(samples[last]!) <= SPEECH_LEVEL) last--;
  return samples.subarray(0, Math.ceil((last + 1) / FRAME_SAMPLES) * FRAME_SAMPLES);
}

export function closeCallerVoices(): void {
  piper?.close();
  piper = undefined;
}
