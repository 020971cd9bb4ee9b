/** What the fake's server VAD reports about a 20 ms window of caller audio. */
export type VadTransition = { type: 'started'; audioStartMs: number } | { type: 'stopped'; audioEndMs: number };

export interface VadSettings {
  threshold: number;
  silenceMs: number;
  prefixPaddingMs: number;
}

const SAMPLE_RATE = 24_000;
const WINDOW_MS = 20;
const WINDOW_SAMPLES = (SAMPLE_RATE / 1000) * WINDOW_MS;

/**
 * A plain energy detector standing in for the provider's server VAD: a 20 ms window is speech when its RMS,
 * as a fraction of full scale, reaches a fifth of `threshold` (the default 0.5 then means -20 dBFS, where
 * speech sits); the turn ends after `silenceMs` without speech. Times count from the session's first
 * appended sample, as the provider's do.
 */
export class EnergyVad {
  private readonly pending = new Int16Array(WINDOW_SAMPLES);
  private pendingLength = 0;
  private elapsedMs = 0;
  private speaking = false;
  private silentMs = 0;

  get audioMs(): number {
    return this.elapsedMs;
  }

  /** Feeds samples; returns the transitions they complete, in order. */
  push(samples: Int16Array, settings: VadSettings): VadTransition[] {
    const transitions: VadTransition[] = [];
    let offset = 0;
    while (offset < samples.length) {
      const take = Math.min(WINDOW_SAMPLES - this.pendingLength, samples.length - offset);
      this.pending.set(samples.subarray(offset, offset + take), this.pendingLength);
      this.pendingLength += take;
      offset += take;
      if (this.pendingLength < WINDOW_SAMPLES) break;
      this.pendingLength = 0;
      const transition = this.window(settings);
      if (transition) transitions.push(transition);
    }
    return transitions;
  }

  private window(settings: VadSettings): VadTransition | undefined {
    let energy = 0;
    for (const sample of this.pending) energy += sample * sample;
    const rms = Math.sqrt(energy / WINDOW_SAMPLES) / 32768;
    const start = this.elapsedMs;
    this.elapsedMs += WINDOW_MS;
    const speech = rms >= settings.threshold / 5;
    if (speech) {
      this.silentMs = 0;
      if (this.speaking) return undefined;
      this.speaking = true;
      return { type: 'started', audioStartMs: Math.max(0, start - settings.prefixPaddingMs) };
    }
    if (!this.speaking) return undefined;
    this.silentMs += WINDOW_MS;
    if (this.silentMs < settings.silenceMs) return undefined;
    this.speaking = false;
    this.silentMs = 0;
    return { type: 'stopped', audioEndMs: this.elapsedMs };
  }
}

/** `durationMs` of a 440 Hz tone at a third of full scale, continuing from `phase` samples in. */
export function tone(durationMs: number, phase: number): Int16Array {
  const samples = new Int16Array(Math.round((SAMPLE_RATE / 1000) * durationMs));
  for (let i = 0; i < samples.length; i++) samples[i] = Math.round(10_000 * Math.sin((2 * Math.PI * 440 * (phase + i)) / SAMPLE_RATE));
  return samples;
}
