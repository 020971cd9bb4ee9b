import { floatToPcm16, pcm16ToFloat } from '../pcm.ts';
import { sherpa, type SherpaVad } from '../sherpa.ts';
import type { VadEvent, VadOptions, VoiceActivityDetector } from './types.ts';

/** Silero VAD v5 judges 512-sample windows (32 ms) at 16 kHz. */
const windowSize = 512;
const sampleRate = 16000;
// Whisper hears at most 30 s at once: longer speech is cut into utterances of that length.
const maxSpeechSeconds = 30;
// Detectors kept for reuse per set of options: more than this many idle at once are left to the collector.
const maxIdle = 64;

export interface SileroVadOptions {
  /** `silero_vad.onnx` (SPEECH_DIR/silero_vad.onnx, from scripts/install-speech.sh). */
  modelPath: string;
}

/**
 * Silero VAD through sherpa-onnx: the engine's 20 ms frames are gathered into 32 ms windows, speech_start
 * comes when the detector turns sure there is speech, speech_end with each segment it cuts (the speech plus
 * the lead-in sherpa keeps before the onset).
 */
export class SileroDetector implements VoiceActivityDetector {
  private vad: SherpaVad | undefined;
  private readonly release: (vad: SherpaVad) => void;
  private readonly listener: (event: VadEvent) => void;
  private readonly window = new Float32Array(windowSize);
  private filled = 0;
  private samplesPushed = 0;
  /** Samples never heard (dropped by an overloaded thread): sherpa's own sample count lacks them. */
  private samplesSkipped = 0;
  private speaking = false;
  private readonly minSpeechMs: number;

  constructor(vad: SherpaVad, options: VadOptions, listener: (event: VadEvent) => void, release: (vad: SherpaVad) => void) {
    this.vad = vad;
    this.minSpeechMs = options.minSpeechMs;
    this.listener = listener;
    this.release = release;
  }

  push(frame: Int16Array): void {
    const vad = this.vad;
    if (!vad) throw new Error('the voice activity detector is closed');
    let offset = 0;
    while (offset < frame.length) {
      const take = Math.min(windowSize - this.filled, frame.length - offset);
      pcm16ToFloat(frame.subarray(offset, offset + take), this.window, this.filled);
      this.filled += take;
      this.samplesPushed += take;
      offset += take;
      if (this.filled < windowSize) break;
      this.filled = 0;
      vad.acceptWaveform(this.window);
      this.collect(vad);
    }
  }

  /** Counts `samples` of audio that were dropped unheard, so the times of later events stay stream times. */
  skip(samples: number): void {
    this.samplesPushed += samples;
    this.samplesSkipped += samples;
  }

  private collect(vad: SherpaVad): void {
    if (!this.speaking && vad.isDetected()) {
      this.speaking = true;
      // The detector is sure only once minSpeechMs of speech has passed; the speech began that long before.
      const nowMs = (this.samplesPushed * 1000) / sampleRate;
      this.listener({ type: 'speech_start', atMs: Math.max(0, Math.round(nowMs - this.minSpeechMs)) });
    }
    while (!vad.isEmpty()) {
      const segment = vad.front(false);
      vad.pop();
      this.speaking = false;
      const atMs = Math.round(((this.samplesSkipped + segment.start + voicedLength(segment.samples)) * 1000) / sampleRate);
      this.listener({ type: 'speech_end', atMs, audio: floatToPcm16(segment.samples) });
    }
  }

  close(): void {
    if (!this.vad) return;
    this.release(this.vad);
    this.vad = undefined;
  }
}

/** Loudness is judged over 10 ms stretches when finding where a segment's voice ends. */
const loudnessWindow = sampleRate / 100;
/** A stretch quieter than this share of the segment's loudest (about -26 dB) is past the voice. */
const tailLevel = 0.05;
/** The most of a segment's tail taken for silence: a soft ending is never cut by more. */
const maxTailSamples = (250 * sampleRate) / 1000;

/**
 * Where the voice in a segment ends. Silero's speech probability stays up for a few windows after the voice
 * stops, so sherpa ends a segment about 100 ms into the silence; counting the turn's silence from there would
 * add that much to every reply. The audio handed on stays whole; only the end time moves.
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

/**
 * Detectors that run on the calling thread: the media role runs them on a thread of their own
 * (vad/threaded.ts), as each 32 ms window costs about 0.1 ms of model inference.
 *
 * Making a detector loads its ONNX session, 100-200 ms of synchronous work on a busy two-core machine. A
 * closed detector is reset and kept for the next call with the same options, so that cost is paid once per
 * concurrent call, not once per call.
 */
export function createSileroVad(options: SileroVadOptions): { name: string; create(options: VadOptions, listener: (event: VadEvent) => void): SileroDetector } {
  const idle = new Map<string, SherpaVad[]>();
  return {
    name: 'silero',
    create(vadOptions: VadOptions, listener: (event: VadEvent) => void): SileroDetector {
      if (vadOptions.sampleRate !== sampleRate) throw new RangeError(`Silero VAD runs at ${sampleRate} Hz, not ${vadOptions.sampleRate} Hz`);
      const key = `${vadOptions.threshold}/${vadOptions.minSpeechMs}/${vadOptions.minSilenceMs}`;
      let pool = idle.get(key);
      if (!pool) {
        pool = [];
        idle.set(key, pool);
      }
      const kept = pool;
      const vad = kept.pop() ?? new (sherpa().Vad)({
        sileroVad: {
          model: options.modelPath,
          threshold: vadOptions.threshold,
          minSpeechDuration: vadOptions.minSpeechMs / 1000,
          minSilenceDuration: vadOptions.minSilenceMs / 1000,
          maxSpeechDuration: maxSpeechSeconds,
          windowSize,
        },
        sampleRate,
        numThreads: 1,
        debug: false,
      }, maxSpeechSeconds + 5);
      return new SileroDetector(vad, vadOptions, listener, (used) => {
        used.reset();
        if (kept.length < maxIdle) kept.push(used);
      });
    },
  };
}
