import { describe, expect, it } from 'vitest';
import { FEATURE_SAMPLES, Fft, N_FRAMES, N_MELS, WhisperFeatures } from '../../src/providers/turn/features.ts';

/** The DFT by its definition, to check the FFT against. */
function dft(re: Float64Array, im: Float64Array): { re: Float64Array; im: Float64Array } {
  const n = re.length;
  const out = { re: new Float64Array(n), im: new Float64Array(n) };
  for (let k = 0; k < n; k++) {
    for (let t = 0; t < n; t++) {
      const angle = (-2 * Math.PI * k * t) / n;
      out.re[k]! += re[t]! * Math.cos(angle) - im[t]! * Math.sin(angle);
      out.im[k]! += re[t]! * Math.sin(angle) + im[t]! * Math.cos(angle);
    }
  }
  return out;
}

describe("Smart Turn's Whisper features", () => {
  it('transforms a window of any size with small prime factors as the DFT does', () => {
    for (const size of [400, 12, 7, 30]) {
      const re = Float64Array.from({ length: size }, (_, i) => Math.sin(i * 1.7) + (i % 3));
      const im = Float64Array.from({ length: size }, (_, i) => Math.cos(i * 0.3));
      const outRe = new Float64Array(size);
      const outIm = new Float64Array(size);
      new Fft(size).transform(re, im, outRe, outIm);
      const expected = dft(re, im);
      for (let k = 0; k < size; k++) {
        expect(outRe[k]).toBeCloseTo(expected.re[k]!, 6);
        expect(outIm[k]).toBeCloseTo(expected.im[k]!, 6);
      }
    }
    expect(() => new Fft(22)).toThrow(/prime factor/);
  });

  it('hears a tone in the mel band of its pitch, at the end of the 8 s window where the audio is put', () => {
    const tone = Int16Array.from({ length: 16000 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 1000 * i) / 16000)));
    const features = new WhisperFeatures().compute(tone);
    expect(features).toHaveLength(N_MELS * N_FRAMES);
    const at = (band: number, frame: number) => features[band * N_FRAMES + frame]!;
    const last = N_FRAMES - 50;
    const loudest = Array.from({ length: N_MELS }, (_, band) => band).reduce((best, band) => (at(band, last) > at(best, last) ? band : best), 0);
    // 1 kHz is where the Slaney scale turns logarithmic, 15 of its 45.2 mels to 8 kHz: band 26 of 80.
    expect(loudest).toBeGreaterThanOrEqual(25);
    expect(loudest).toBeLessThanOrEqual(27);
    // The silence the second of tone is put after, 8 decades down and flat.
    expect(at(loudest, 10)).toBeLessThan(at(loudest, last) - 1.5);
    expect(at(loudest, 10)).toBeCloseTo(at(loudest, 200), 5);
  });

  it('keeps the last 8 s of longer audio', () => {
    const features = new WhisperFeatures();
    const long = Int16Array.from({ length: FEATURE_SAMPLES + 16000 }, (_, i) => (i < 16000 ? 0 : Math.round(5000 * Math.sin(i / 7))));
    expect(features.compute(long)).toEqual(features.compute(long.subarray(16000)));
  });
});
