/**
 * Frame arithmetic. The engine moves audio in frames of 20 ms, the carrier's packet size: at 8 kHz μ-law a
 * frame is 160 bytes, at 16 kHz PCM16 it is 640.
 */

/** The duration of one frame of media. */
export const FRAME_MS = 20;

/** The rate the engine computes at between the edges (VAD, STT, TTS, mixing); docs/decisions.md says why. */
export const INTERNAL_SAMPLE_RATE = 16000;

/** The samples in one frame of `ms` milliseconds at `sampleRate` Hz (rates are whole samples per ms here). */
export function samplesPerFrame(sampleRate: number, ms = FRAME_MS): number {
  const samples = (sampleRate * ms) / 1000;
  if (!Number.isInteger(samples)) throw new RangeError(`${ms} ms at ${sampleRate} Hz is not a whole number of samples.`);
  return samples;
}

/** The bytes in one frame: one per sample for μ-law, two for PCM16. */
export function bytesPerFrame(encoding: 'mulaw' | 'pcm16', sampleRate: number, ms = FRAME_MS): number {
  return samplesPerFrame(sampleRate, ms) * (encoding === 'mulaw' ? 1 : 2);
}
