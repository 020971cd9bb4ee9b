import { describe, expect, it } from 'vitest';
import { Resampler } from '../../src/lib/audio/resampler.ts';

/** `seconds` of a sine of `frequency` Hz and peak `amplitude` sampled at `rate`. */
function sine(frequency: number, rate: number, seconds: number, amplitude = 10_000): Int16Array {
  return Int16Array.from({ length: Math.round(rate * seconds) }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * frequency * i) / rate)));
}

/** The peak amplitude of the `frequency` component of `samples` (Goertzel; exact when they hold whole cycles). */
function amplitudeAt(samples: Int16Array, frequency: number, rate: number): number {
  const coefficient = 2 * Math.cos((2 * Math.PI * frequency) / rate);
  let previous = 0;
  let beforePrevious = 0;
  for (const sample of samples) {
    const current = sample + coefficient * previous - beforePrevious;
    beforePrevious = previous;
    previous = current;
  }
  const power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious;
  return (2 * Math.sqrt(Math.max(0, power))) / samples.length;
}

function zeroCrossings(samples: Int16Array): number {
  let crossings = 0;
  for (let i = 1; i < samples.length; i++) if ((samples[i - 1]! < 0) !== (samples[i]! < 0)) crossings++;
  return crossings;
}

function rms(samples: Int16Array): number {
  return Math.sqrt(samples.reduce((sum, sample) => sum + sample * sample, 0) / samples.length);
}

/** The half second after the first 50 ms (past the filter's delay and start-up): 220 whole cycles of 440 Hz. */
function steady(samples: Int16Array, rate: number): Int16Array {
  return samples.subarray(rate / 20, rate / 20 + rate / 2);
}

/** `input` fed to a fresh resampler in chunks of the given sizes (cycled), the outputs joined. */
function inChunks(from: number, to: number, input: Int16Array, sizes: number[]): Int16Array {
  const resampler = new Resampler(from, to);
  const outputs: Int16Array[] = [];
  for (let offset = 0, k = 0; offset < input.length; k++) {
    const size = sizes[k % sizes.length]!;
    outputs.push(resampler.process(input.subarray(offset, offset + size)));
    offset += size;
  }
  const joined = new Int16Array(outputs.reduce((sum, output) => sum + output.length, 0));
  outputs.reduce((offset, output) => (joined.set(output, offset), offset + output.length), 0);
  return joined;
}

describe('Resampler', () => {
  it('keeps a 440 Hz tone at its frequency and amplitude through 8k → 16k → 48k → 16k → 8k', () => {
    const rates = [8000, 16000, 48000, 16000, 8000];
    let signal = sine(440, 8000, 0.7);
    for (let i = 1; i < rates.length; i++) {
      signal = new Resampler(rates[i - 1]!, rates[i]!).process(signal);
      const rate = rates[i]!;
      expect(signal.length).toBe(0.7 * rate);
      const window = steady(signal, rate);
      expect(amplitudeAt(window, 440, rate) / 10_000, `at ${rate} Hz`).toBeCloseTo(1, 2);
      expect(zeroCrossings(window), `at ${rate} Hz`).toBeGreaterThanOrEqual(439);
      expect(zeroCrossings(window), `at ${rate} Hz`).toBeLessThanOrEqual(441);
      // Nearly all the energy is the tone: the rest is quantisation and filter ripple.
      expect(rms(window)).toBeCloseTo(10_000 / Math.SQRT2, -1);
    }
  });

  it('passes the telephone band when halving the rate', () => {
    for (const frequency of [300, 1000, 3000]) {
      const output = new Resampler(16000, 8000).process(sine(frequency, 16000, 0.6));
      expect(amplitudeAt(steady(output, 8000), frequency, 8000) / 10_000, `${frequency} Hz`).toBeGreaterThan(0.98);
    }
  });

  it('removes tones above the new Nyquist frequency instead of folding them into the band', () => {
    const cases = [
      { from: 16000, to: 8000, frequency: 4500, alias: 3500 },
      { from: 16000, to: 8000, frequency: 6000, alias: 2000 },
      { from: 48000, to: 16000, frequency: 10000, alias: 6000 },
      { from: 48000, to: 8000, frequency: 5000, alias: 3000 },
    ];
    for (const { from, to, frequency, alias } of cases) {
      const output = steady(new Resampler(from, to).process(sine(frequency, from, 0.6, 30_000)), to);
      expect(amplitudeAt(output, alias, to), `${frequency} Hz at ${from} → ${to}`).toBeLessThan(30_000 * 1e-3);
      expect(rms(output), `${frequency} Hz at ${from} → ${to}`).toBeLessThan(30_000 * 1e-3);
    }
  });

  it('gives the same samples in chunks of any size as in one call', () => {
    const pairs = [[8000, 16000], [16000, 8000], [8000, 48000], [48000, 8000], [16000, 24000], [24000, 16000], [44100, 16000]];
    for (const [from, to] of pairs as [number, number][]) {
      const input = Int16Array.from({ length: from / 5 }, (_, i) => Math.round(12_000 * Math.sin(i / 7) + 3_000 * Math.sin(i * 1.3)));
      const whole = new Resampler(from, to).process(input);
      expect([...inChunks(from, to, input, [1, 0, 7, 160, 3, 641, 2])], `${from} → ${to}`).toEqual([...whole]);
    }
  });

  it('comes out with exactly ceil(inputs · out/in) samples after any number of chunks, without drift', () => {
    const resampler = new Resampler(16000, 24000);
    let inputs = 0;
    let outputs = 0;
    for (let k = 0; k < 5000; k++) {
      const size = (k * 37) % 331;
      outputs += resampler.process(new Int16Array(size)).length;
      inputs += size;
      expect(outputs).toBe(Math.ceil((inputs * 3) / 2));
    }
    const telephone = new Resampler(8000, 16000);
    let frames = 0;
    for (let k = 0; k < 3000; k++) frames += telephone.process(new Int16Array(160)).length === 320 ? 1 : 0;
    expect(frames).toBe(3000);
  });

  it('passes a constant level unchanged once the delay has passed', () => {
    for (const [from, to] of [[8000, 48000], [48000, 8000], [44100, 16000]] as [number, number][]) {
      const resampler = new Resampler(from, to);
      const output = resampler.process(new Int16Array(from / 10).fill(-12_345));
      expect(resampler.delaySamples).toBeGreaterThan(0);
      expect(new Set(output.subarray(Math.ceil(2 * resampler.delaySamples) + 1))).toEqual(new Set([-12_345]));
    }
  });

  it('starts over after a reset, as a new resampler would', () => {
    const input = sine(440, 8000, 0.05);
    const resampler = new Resampler(8000, 24000);
    resampler.process(sine(1000, 8000, 0.013));
    resampler.reset();
    expect([...resampler.process(input)]).toEqual([...new Resampler(8000, 24000).process(input)]);
  });

  it('copies samples between equal rates', () => {
    const input = Int16Array.from([1, -2, 3]);
    const output = new Resampler(16000, 16000).process(input);
    expect([...output]).toEqual([1, -2, 3]);
    expect(output).not.toBe(input);
  });

  it('refuses rates that are not positive whole numbers, or ratios that need too many phases', () => {
    expect(() => new Resampler(0, 8000)).toThrow(RangeError);
    expect(() => new Resampler(8000, 22050.5)).toThrow(RangeError);
    expect(() => new Resampler(8000, 16001)).toThrow(/16001 kernel phases/);
  });
});
