/**
 * Turns a stream of speech probabilities, one per 32 ms window, into utterances: the hysteresis of Silero's
 * own streaming rules (speech above the threshold, silence below it less 0.15, each held long enough), with
 * the utterance's audio kept for a segment recognizer. Pure: the model runs elsewhere (silero-streams.ts).
 */
import { floatToPcm16 } from '../../lib/audio/pcm.ts';
import type { VadEvent, VadOptions } from './types.ts';

/** Silero VAD v5 judges 512-sample windows (32 ms) at 16 kHz. */
export const SILERO_WINDOW = 512;
export const SILERO_RATE = 16000;
/** Whisper hears at most 30 s at once: longer speech is cut into utterances of that length. */
const MAX_SPEECH_SAMPLES = 30 * SILERO_RATE;
/** Audio kept from before the onset, so a recognizer hears the first syllable whole. */
const LEAD_IN_SAMPLES = 6 * SILERO_WINDOW;

export class SpeechSegmenter {
  private readonly threshold: number;
  private readonly silenceThreshold: number;
  private readonly minSpeechSamples: number;
  private readonly minSilenceSamples: number;
  /** Samples of the stream before the next window, dropped ones included: the time base of every event. */
  private position = 0;
  private onset: number | undefined;
  private speaking = false;
  private silenceFrom: number | undefined;
  /** The windows since the lead-in began (speaking), or the lead-in alone (silent). */
  private windows: Float32Array[] = [];
  private firstWindowAt = 0;

  constructor(options: Pick<VadOptions, 'threshold' | 'minSpeechMs' | 'minSilenceMs'>) {
    this.threshold = options.threshold;
    this.silenceThreshold = Math.max(options.threshold - 0.15, 0.01);
    this.minSpeechSamples = (options.minSpeechMs * SILERO_RATE) / 1000;
    this.minSilenceSamples = (options.minSilenceMs * SILERO_RATE) / 1000;
  }

  /** One window of audio and the model's speech probability for it; what it changed. */
  window(probability: number, samples: Float32Array): VadEvent[] {
    const at = this.position;
    this.position += samples.length;
    this.keep(at, samples);
    if (probability >= this.threshold) {
      this.silenceFrom = undefined;
      this.onset ??= at;
      if (!this.speaking && this.position - this.onset >= this.minSpeechSamples) {
        this.speaking = true;
        return [{ type: 'speech_start', atMs: toMs(this.onset) }];
      }
    } else if (probability < this.silenceThreshold || !this.speaking) {
      if (!this.speaking) {
        this.onset = undefined;
      } else {
        this.silenceFrom ??= at;
        if (this.position - this.silenceFrom >= this.minSilenceSamples) return [this.end()];
      }
    }
    if (this.speaking && this.onset !== undefined && this.position - this.onset >= MAX_SPEECH_SAMPLES) {
      const cut = this.end();
      // The caller speaks on: the next utterance starts where this one was cut.
      this.onset = this.position;
      return [cut];
    }
    return [];
  }

  /**
   * Counts `samples` dropped unheard, so later events keep stream times. Speech heard before the gap ends
   * there (its end is told, so nobody waits for it); the gap itself counts as neither.
   */
  skip(samples: number): VadEvent[] {
    const cut = this.speaking ? [this.end()] : [];
    this.position += samples;
    this.windows = [];
    this.onset = undefined;
    this.silenceFrom = undefined;
    return cut;
  }

  private keep(at: number, samples: Float32Array): void {
    if (this.windows.length === 0) this.firstWindowAt = at;
    this.windows.push(samples);
    if (this.onset !== undefined) return;
    while (this.windows.length > 0 && at - this.firstWindowAt > LEAD_IN_SAMPLES) {
      this.firstWindowAt += (this.windows.shift() as Float32Array).length;
    }
  }

  private end(): VadEvent {
    const start = Math.max(this.firstWindowAt, (this.onset ?? this.firstWindowAt) - LEAD_IN_SAMPLES);
    const joined = new Float32Array(this.position - this.firstWindowAt);
    let offset = 0;
    for (const window of this.windows) {
      joined.set(window, offset);
      offset += window.length;
    }
    const utterance = joined.subarray(start - this.firstWindowAt);
    const onset = this.onset ?? start;
    const voicedEnd = this.silenceFrom !== undefined ? this.silenceFrom : this.position;
    const endAt = onset + voicedLength(utterance.subarray(onset - start, voicedEnd - start));
    this.speaking = false;
    this.onset = undefined;
    this.silenceFrom = undefined;
    this.windows = [];
    return { type: 'speech_end', atMs: toMs(endAt), audio: floatToPcm16(utterance) };
  }
}

function toMs(samples: number): number {
  return Math.round((samples * 1000) / SILERO_RATE);
}

/** Loudness is judged over 10 ms stretches when finding where the voice ends. */
const loudnessWindow = SILERO_RATE / 100;
/** A stretch quieter than this share of the utterance's loudest (about -26 dB) is past the voice. */
const tailLevel = 0.05;
/** The most of an utterance's tail taken for silence: a soft ending is never cut by more. */
const maxTailSamples = (250 * SILERO_RATE) / 1000;

/**
 * Where the voice ends in `samples` (onset to the first silent window). Silero's probability stays up for a
 * window or more after the voice stops; counting the turn's silence from there would add that much to every
 * reply. The audio handed on stays whole; only the end time moves.
 */
function voicedLength(samples: Float32Array): number {
  const windows = Math.floor(samples.length / loudnessWindow);
  const energy = new Float32Array(windows);
  let loudest = 0;
  for (let w = 0; w < windows; w++) {
    let sum = 0;
    for (let i = w * loudnessWindow; i < (w + 1) * loudnessWindow; i++) sum += (samples[i] as number) ** 2;
    energy[w] = sum;
    loudest = Math.max(loudest, sum);
  }
  const floor = loudest * tailLevel ** 2;
  const earliest = Math.max(0, samples.length - maxTailSamples);
  let end = windows;
  while (end > 0 && (end - 1) * loudnessWindow >= earliest && (energy[end - 1] as number) < floor) end--;
  return end === windows ? samples.length : Math.max(end * loudnessWindow, earliest);
}
