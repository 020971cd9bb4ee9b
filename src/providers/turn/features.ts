/**
 * The input of Smart Turn v3: Whisper's log-mel spectrogram of the last 8 s of audio at 16 kHz (shorter audio
 * padded with silence in front), as Hugging Face's `WhisperFeatureExtractor(chunk_length=8)` computes it with
 * `do_normalize` and as Pipecat feeds the model: the waveform normalized to zero mean and unit variance, 25 ms
 * periodic Hann windows every 10 ms (reflect-padded at both ends, the last frame dropped), 80 Slaney mel
 * bands to 8 kHz, log10 floored at 1e-10, clamped 8 decades below the peak, then (x + 4) / 4. Pure and
 * allocation-light: it runs on the turn model's thread, once per pause of each caller.
 */

export const FEATURE_RATE = 16000;
export const FEATURE_SECONDS = 8;
export const FEATURE_SAMPLES = FEATURE_RATE * FEATURE_SECONDS;
export const N_MELS = 80;
export const N_FRAMES = 800;
const N_FFT = 400;
const HOP = 160;
const BINS = N_FFT / 2 + 1;

/**
 * A complex FFT of one size, by recursive decimation in time over its prime factors (400 = 2·2·2·2·5·5): the
 * window length Whisper's features use is not a power of two.
 */
export class Fft {
  readonly size: number;
  private readonly levels: { p: number; m: number; twRe: Float64Array; twIm: Float64Array; dftRe: Float64Array; dftIm: Float64Array }[] = [];
  private readonly scratchRe = new Float64Array(8);
  private readonly scratchIm = new Float64Array(8);

  constructor(size: number) {
    this.size = size;
    const factors: number[] = [];
    for (let rest = size, p = 2; rest > 1;) {
      if (rest % p === 0) {
        factors.push(p);
        rest /= p;
      } else {
        p++;
      }
    }
    if (factors.some((p) => p > 7)) throw new RangeError(`an FFT of ${size} points has a prime factor over 7`);
    const angle = (turns: number) => -2 * Math.PI * turns;
    let n = size;
    for (const p of factors) {
      const m = n / p;
      // The twiddles of each sub-transform's bin k, and the p-point DFT that combines them.
      const twRe = new Float64Array(m * p);
      const twIm = new Float64Array(m * p);
      for (let k = 0; k < m; k++) {
        for (let q = 0; q < p; q++) {
          twRe[k * p + q] = Math.cos(angle((q * k) / n));
          twIm[k * p + q] = Math.sin(angle((q * k) / n));
        }
      }
      const dftRe = new Float64Array(p * p);
      const dftIm = new Float64Array(p * p);
      for (let r = 0; r < p; r++) {
        for (let q = 0; q < p; q++) {
          dftRe[r * p + q] = Math.cos(angle(((q * r) % p) / p));
          dftIm[r * p + q] = Math.sin(angle(((q * r) % p) / p));
        }
      }
      this.levels.push({ p, m, twRe, twIm, dftRe, dftIm });
      n = m;
    }
  }

  /** The transform of `re` + i·`im` (each `size` long) into `outRe`, `outIm`. */
  transform(re: Float64Array, im: Float64Array, outRe: Float64Array, outIm: Float64Array): void {
    this.step(re, im, 0, 1, outRe, outIm, 0, 0);
  }

  private step(re: Float64Array, im: Float64Array, offset: number, stride: number, outRe: Float64Array, outIm: Float64Array, out: number, level: number): void {
    const stage = this.levels[level];
    if (!stage) {
      outRe[out] = re[offset]!;
      outIm[out] = im[offset]!;
      return;
    }
    const { p, m, twRe, twIm, dftRe, dftIm } = stage;
    for (let q = 0; q < p; q++) this.step(re, im, offset + q * stride, stride * p, outRe, outIm, out + q * m, level + 1);
    // Sub-transform q holds bin k at out + q·m + k: combine the p of them.
    const { scratchRe, scratchIm } = this;
    for (let k = 0; k < m; k++) {
      for (let q = 0; q < p; q++) {
        const at = out + q * m + k;
        const xr = outRe[at]!;
        const xi = outIm[at]!;
        const wr = twRe[k * p + q]!;
        const wi = twIm[k * p + q]!;
        scratchRe[q] = xr * wr - xi * wi;
        scratchIm[q] = xr * wi + xi * wr;
      }
      for (let r = 0; r < p; r++) {
        let sr = 0;
        let si = 0;
        for (let q = 0; q < p; q++) {
          const wr = dftRe[r * p + q]!;
          const wi = dftIm[r * p + q]!;
          sr += scratchRe[q]! * wr - scratchIm[q]! * wi;
          si += scratchRe[q]! * wi + scratchIm[q]! * wr;
        }
        outRe[out + r * m + k] = sr;
        outIm[out + r * m + k] = si;
      }
    }
  }
}

function hzToMel(hz: number): number {
  return hz >= 1000 ? 15 + Math.log(hz / 1000) * (27 / Math.log(6.4)) : (3 * hz) / 200;
}

function melToHz(mel: number): number {
  return mel >= 15 ? 1000 * Math.exp((Math.log(6.4) / 27) * (mel - 15)) : (200 * mel) / 3;
}

/** One triangular filter: its weights over the bins it covers, from `first` on. */
interface MelFilter {
  first: number;
  weights: Float64Array;
}

/** Triangular filters evenly spaced on the Slaney mel scale from 0 to 8 kHz, each normalized to unit area. */
function melFilters(): MelFilter[] {
  const top = hzToMel(FEATURE_RATE / 2);
  const edges = Array.from({ length: N_MELS + 2 }, (_, i) => melToHz((top * i) / (N_MELS + 1)));
  return Array.from({ length: N_MELS }, (_, band) => {
    const [low, centre, high] = [edges[band]!, edges[band + 1]!, edges[band + 2]!];
    const weights = Array.from({ length: BINS }, (_, bin) => {
      const hz = (bin * FEATURE_RATE) / 2 / (BINS - 1);
      return Math.max(0, Math.min((hz - low) / (centre - low), (high - hz) / (high - centre))) * (2 / (high - low));
    });
    // Only the bins a filter covers are kept: a band spans a few bins of the 201.
    const first = Math.max(0, weights.findIndex((weight) => weight > 0));
    const last = weights.findLastIndex((weight) => weight > 0);
    return { first, weights: Float64Array.from(weights.slice(first, Math.max(last + 1, first))) };
  });
}

/** Computes the features; one instance per thread (it keeps its buffers). */
export class WhisperFeatures {
  private readonly fft = new Fft(N_FFT);
  private readonly filters = melFilters();
  private readonly window = Float64Array.from({ length: N_FFT }, (_, n) => 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / N_FFT));
  private readonly padded = new Float64Array(FEATURE_SAMPLES + N_FFT);
  private readonly frameRe = new Float64Array(N_FFT);
  private readonly frameIm = new Float64Array(N_FFT);
  private readonly specRe = new Float64Array(N_FFT);
  private readonly specIm = new Float64Array(N_FFT);
  private readonly powerA = new Float64Array(BINS);
  private readonly powerB = new Float64Array(BINS);

  /** The [80][800] features (row-major, one row per mel band) of the last 8 s of `audio` (PCM16 at 16 kHz). */
  compute(audio: Int16Array): Float32Array {
    const take = Math.min(audio.length, FEATURE_SAMPLES);
    const samples = new Float64Array(FEATURE_SAMPLES);
    for (let i = 0; i < take; i++) samples[FEATURE_SAMPLES - take + i] = audio[audio.length - take + i]! / 32768;
    // Zero mean and unit variance over the whole 8 s, the silence in front included, as the reference does.
    let mean = 0;
    for (let i = 0; i < FEATURE_SAMPLES; i++) mean += samples[i]!;
    mean /= FEATURE_SAMPLES;
    let variance = 0;
    for (let i = 0; i < FEATURE_SAMPLES; i++) variance += (samples[i]! - mean) ** 2;
    const scale = 1 / Math.sqrt(variance / FEATURE_SAMPLES + 1e-7);
    const pad = N_FFT / 2;
    const { padded } = this;
    for (let i = 0; i < FEATURE_SAMPLES; i++) padded[pad + i] = (samples[i]! - mean) * scale;
    // Reflect padding: the samples mirrored around each end, the end itself not repeated.
    for (let i = 1; i <= pad; i++) {
      padded[pad - i] = padded[pad + i]!;
      padded[pad + FEATURE_SAMPLES - 1 + i] = padded[pad + FEATURE_SAMPLES - 1 - i]!;
    }
    const logs = new Float64Array(N_MELS * N_FRAMES);
    let peak = -Infinity;
    // Two real frames per complex transform: one as the real part, the next as the imaginary part.
    for (let frame = 0; frame < N_FRAMES; frame += 2) {
      this.powersAt(frame * HOP, (frame + 1) * HOP);
      peak = Math.max(peak, this.melLogs(this.powerA, logs, frame), this.melLogs(this.powerB, logs, frame + 1));
    }
    const features = new Float32Array(N_MELS * N_FRAMES);
    for (let i = 0; i < features.length; i++) features[i] = (Math.max(logs[i]!, peak - 8) + 4) / 4;
    return features;
  }

  /** The log mel energies of one frame's power spectrum into column `frame` of `logs`; their largest. */
  private melLogs(power: Float64Array, logs: Float64Array, frame: number): number {
    let peak = -Infinity;
    for (let band = 0; band < N_MELS; band++) {
      const { first, weights } = this.filters[band]!;
      let sum = 0;
      for (let j = 0; j < weights.length; j++) sum += weights[j]! * power[first + j]!;
      const log = Math.log10(Math.max(sum, 1e-10));
      logs[band * N_FRAMES + frame] = log;
      if (log > peak) peak = log;
    }
    return peak;
  }

  /** The power spectra of the frames starting at `a` and `b`, into `powerA` and `powerB`. */
  private powersAt(a: number, b: number): void {
    const { frameRe, frameIm, specRe, specIm, window, padded, powerA, powerB } = this;
    for (let n = 0; n < N_FFT; n++) {
      frameRe[n] = padded[a + n]! * window[n]!;
      frameIm[n] = padded[b + n]! * window[n]!;
    }
    this.fft.transform(frameRe, frameIm, specRe, specIm);
    // Z = A + iB with A, B real: A[k] = (Z[k] + conj Z[N-k]) / 2 and B[k] = (Z[k] - conj Z[N-k]) / 2i.
    for (let bin = 0; bin < BINS; bin++) {
      const mirror = (N_FFT - bin) % N_FFT;
      const zr = specRe[bin]!;
      const zi = specIm[bin]!;
      const mr = specRe[mirror]!;
      const mi = specIm[mirror]!;
      powerA[bin] = ((zr + mr) ** 2 + (zi - mi) ** 2) / 4;
      powerB[bin] = ((zi + mi) ** 2 + (zr - mr) ** 2) / 4;
    }
  }
}
