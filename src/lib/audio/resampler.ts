/**
 * A streaming resampler for PCM16 between any two rates whose ratio reduces to at most MAX_PHASES output
 * phases (8000, 16000, 24000 and 48000 Hz with each other, 44100 with those). It is a polyphase windowed-sinc
 * FIR: output sample n sits at input time n·M/L (L/M the reduced ratio out/in), and is the sum of the 2K
 * inputs around it weighted by a Kaiser-windowed sinc whose cutoff lies just under the lower of the two
 * Nyquist frequencies, so downsampling removes what would alias and upsampling removes the images.
 *
 * State carries across chunks (the last 2K−1 inputs and the position of the next output), so any split of the
 * input gives the same samples as one call with all of it, and after N inputs exactly ceil(N·L/M) outputs have
 * come out: no clicks at chunk boundaries, no drift over a call. The price is a fixed delay of K input
 * samples (2.25 ms between 8 and 16 kHz either way), with silence assumed before the first input.
 */

/** Zero crossings of the sinc on each side of the kernel, at the lower rate: the filter's sharpness. */
const ZERO_CROSSINGS = 16;
/** Cutoff as a fraction of the lower Nyquist frequency; the transition band ends near that Nyquist. */
const ROLLOFF = 0.9;
/** Kaiser window shape: about 80 dB of stopband attenuation. */
const KAISER_BETA = 8;
/** Larger reduced ratios would need tables of kernel phases too large to be worth it. */
const MAX_PHASES = 1024;

/** Kernels by `input:output` rate; a handful of rate pairs exist, so the cache stays small. */
const kernels = new Map<string, Float64Array>();

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** The zeroth-order modified Bessel function of the first kind, by its power series (the Kaiser window's I0). */
function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  for (let k = 1; term > sum * 1e-12; k++) {
    term *= (x / (2 * k)) ** 2;
    sum += term;
  }
  return sum;
}

/** Converts a stream of PCM16 chunks from one sample rate to another; one instance per stream. */
export class Resampler {
  readonly inputRate: number;
  readonly outputRate: number;
  /** Output phases per M inputs (the reduced ratio is up/down). */
  private readonly up: number;
  private readonly down: number;
  /** Half the kernel's length, in input samples. */
  private readonly halfTaps: number;
  /** `up` rows of 2K coefficients: row p weights the inputs for an output p/L of an input past base. */
  private readonly kernel: Float64Array;
  /** The last 2K−1 inputs followed by the current chunk; grows to the largest chunk seen, then is reused. */
  private window: Float64Array;
  /** Inputs seen so far, and the input index and phase of the next output. */
  private inputCount = 0;
  private nextBase = 0;
  private nextPhase = 0;

  constructor(inputRate: number, outputRate: number) {
    for (const rate of [inputRate, outputRate]) {
      if (!Number.isInteger(rate) || rate <= 0) throw new RangeError(`A sample rate must be a positive whole number of Hz, got ${rate}.`);
    }
    const divisor = gcd(inputRate, outputRate);
    this.inputRate = inputRate;
    this.outputRate = outputRate;
    this.up = outputRate / divisor;
    this.down = inputRate / divisor;
    if (this.up > MAX_PHASES) throw new RangeError(`Resampling ${inputRate} Hz to ${outputRate} Hz needs ${this.up} kernel phases; at most ${MAX_PHASES} are supported.`);
    // Cutoff in cycles per input sample; downsampling moves it (and widens the kernel) by the ratio.
    const cutoff = 0.5 * ROLLOFF * Math.min(1, this.up / this.down);
    this.halfTaps = Math.ceil(ZERO_CROSSINGS / (2 * cutoff));
    // Every stream between the same two rates has the same kernel: built once per process, not per call.
    const key = `${inputRate}:${outputRate}`;
    let kernel = kernels.get(key);
    if (!kernel) {
      kernel = this.buildKernel(cutoff);
      kernels.set(key, kernel);
    }
    this.kernel = kernel;
    this.window = new Float64Array(2 * this.halfTaps - 1);
  }

  /** The fixed delay the filter adds, in output samples. */
  get delaySamples(): number {
    return (this.halfTaps * this.up) / this.down;
  }

  /** The output for the next chunk of input; its length depends only on how many inputs came before. */
  process(input: Int16Array): Int16Array {
    if (this.up === this.down) return input.slice();
    const history = 2 * this.halfTaps - 1;
    if (this.window.length < history + input.length) {
      const grown = new Float64Array(history + input.length);
      grown.set(this.window.subarray(0, history));
      this.window = grown;
    }
    const window = this.window;
    window.set(input, history);
    // window[0] holds input index firstIndex; output n needs inputs base−2K+1 … base.
    const firstIndex = this.inputCount - history;
    const end = this.inputCount + input.length;
    const count = this.outputsAfter(end) - this.outputsAfter(this.inputCount);
    const output = new Int16Array(count);
    const taps = 2 * this.halfTaps;
    const kernel = this.kernel;
    let base = this.nextBase;
    let phase = this.nextPhase;
    for (let n = 0; n < count; n++) {
      const start = base - taps + 1 - firstIndex;
      const row = phase * taps;
      let sum = 0;
      for (let j = 0; j < taps; j++) sum += window[start + j]! * kernel[row + j]!;
      output[n] = sum >= 32767 ? 32767 : sum <= -32768 ? -32768 : Math.round(sum);
      phase += this.down;
      while (phase >= this.up) {
        phase -= this.up;
        base++;
      }
    }
    this.nextBase = base;
    this.nextPhase = phase;
    this.inputCount = end;
    window.copyWithin(0, input.length, input.length + history);
    return output;
  }

  /** Forgets the stream so far, as if new: silence before the next input, no pending output. */
  reset(): void {
    this.window.fill(0);
    this.inputCount = 0;
    this.nextBase = 0;
    this.nextPhase = 0;
  }

  /** Outputs due once `inputs` samples are in: those at an input time before the last one, ceil(inputs·L/M). */
  private outputsAfter(inputs: number): number {
    return Math.floor((inputs * this.up + this.down - 1) / this.down);
  }

  /** Row p, tap j weighs input base−2K+1+j for an output at input time base + p/L − K (the delay). */
  private buildKernel(cutoff: number): Float64Array {
    const taps = 2 * this.halfTaps;
    const kernel = new Float64Array(this.up * taps);
    const norm = besselI0(KAISER_BETA);
    for (let phase = 0; phase < this.up; phase++) {
      let total = 0;
      for (let j = 0; j < taps; j++) {
        const distance = j - this.halfTaps + 1 - phase / this.up;
        const x = 2 * cutoff * distance;
        const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
        const edge = distance / this.halfTaps;
        const window = Math.abs(edge) >= 1 ? 0 : besselI0(KAISER_BETA * Math.sqrt(1 - edge * edge)) / norm;
        kernel[phase * taps + j] = sinc * window;
        total += sinc * window;
      }
      // Each phase passes a constant through unchanged, so a steady level never ripples with the phase.
      const row = kernel.subarray(phase * taps, (phase + 1) * taps);
      row.set(row.map((weight) => weight / total));
    }
    return kernel;
  }
}
