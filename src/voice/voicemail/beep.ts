/**
 * An answering machine's beep: one pure tone, somewhere between 800 and 2000 Hz, lasting a few hundred
 * milliseconds. Each frame of the caller's audio is measured at every candidate frequency with the Goertzel
 * algorithm (one second-order filter per frequency, a handful of multiply-adds per sample), and a frame is
 * tonal when a single frequency holds most of its energy; speech spreads its energy over many harmonics that
 * glide, noise over everything. A run of tonal frames at a steady frequency, long enough, is a beep. Cheap
 * enough for the media path: about 49 filters over 320 samples per 20 ms frame (bench: the unit test prints it).
 */

export interface BeepDetectorOptions {
  sampleRate: number;
  /** The frequencies looked at: from `minHz` to `maxHz` every `stepHz`. */
  minHz?: number;
  maxHz?: number;
  stepHz?: number;
  /** A frame is tonal when one frequency holds at least this share of its energy (1 for a pure tone on the frequency). */
  purity?: number;
  /** ... and it is at least this loud (RMS of PCM16 samples): line noise is not a tone. */
  minRms?: number;
  /** A beep lasts at least this long. */
  minMs?: number;
  /** A tone gliding further than this from where it started is not one beep. */
  maxDriftHz?: number;
}

export type BeepEvent =
  /** A tone has lasted long enough to be a beep; `atMs` is when it began. */
  | { type: 'beep_started'; atMs: number; frequencyHz: number }
  /** The beep is over; `atMs` is when its last tonal frame ended. */
  | { type: 'beep_ended'; atMs: number; frequencyHz: number; durationMs: number };

const DEFAULTS = { minHz: 800, maxHz: 2000, stepHz: 25, purity: 0.6, minRms: 300, minMs: 120, maxDriftHz: 50 };

interface ToneRun {
  frequencyHz: number;
  startMs: number;
  endMs: number;
  reported: boolean;
}

export class BeepDetector {
  private readonly sampleRate: number;
  private readonly settings: typeof DEFAULTS;
  private readonly frequencies: number[] = [];
  /** 2·cos(2πf/fs) per frequency: the Goertzel filter's one coefficient. */
  private readonly coefficients: Float64Array;
  private run: ToneRun | undefined;

  constructor(options: BeepDetectorOptions) {
    this.sampleRate = options.sampleRate;
    this.settings = { ...DEFAULTS, ...definedOnly(options) };
    const { minHz, maxHz, stepHz } = this.settings;
    for (let frequency = minHz; frequency <= maxHz; frequency += stepHz) this.frequencies.push(frequency);
    this.coefficients = Float64Array.from(this.frequencies, (frequency) => 2 * Math.cos((2 * Math.PI * frequency) / this.sampleRate));
  }

  /**
   * One frame of audio beginning at `atMs` (any clock in milliseconds). Answers an event when a tone has just
   * become a beep, or a beep has just ended.
   */
  push(frame: Int16Array, atMs: number): BeepEvent | undefined {
    const frameMs = (frame.length * 1000) / this.sampleRate;
    const frequency = this.toneOf(frame);
    const run = this.run;
    if (frequency !== undefined && run && Math.abs(frequency - run.frequencyHz) <= this.settings.maxDriftHz) {
      run.endMs = atMs + frameMs;
      if (!run.reported && run.endMs - run.startMs >= this.settings.minMs) {
        run.reported = true;
        return { type: 'beep_started', atMs: run.startMs, frequencyHz: run.frequencyHz };
      }
      return undefined;
    }
    this.run = frequency === undefined ? undefined : { frequencyHz: frequency, startMs: atMs, endMs: atMs + frameMs, reported: false };
    if (run?.reported) return { type: 'beep_ended', atMs: run.endMs, frequencyHz: run.frequencyHz, durationMs: run.endMs - run.startMs };
    return undefined;
  }

  /** The frequency holding most of the frame's energy, when the frame is loud and that share is large enough. */
  private toneOf(frame: Int16Array): number | undefined {
    const n = frame.length;
    if (n === 0) return undefined;
    let energy = 0;
    for (let i = 0; i < n; i++) energy += frame[i]! * frame[i]!;
    const { minRms, purity } = this.settings;
    if (energy < minRms * minRms * n) return undefined;
    let best = 0;
    let bestIndex = -1;
    for (let k = 0; k < this.coefficients.length; k++) {
      const coefficient = this.coefficients[k]!;
      let s1 = 0;
      let s2 = 0;
      for (let i = 0; i < n; i++) {
        const s0 = frame[i]! + coefficient * s1 - s2;
        s2 = s1;
        s1 = s0;
      }
      const power = s1 * s1 + s2 * s2 - coefficient * s1 * s2;
      if (power > best) {
        best = power;
        bestIndex = k;
      }
    }
    // A pure tone of amplitude A on the frequency: power (A·n/2)², energy A²·n/2, so the share is 1.
    const share = (2 * best) / (n * energy);
    return share >= purity ? this.frequencies[bestIndex] : undefined;
  }
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
