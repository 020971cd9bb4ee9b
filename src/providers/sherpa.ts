import { createRequire } from 'node:module';

/**
 * The part of `sherpa-onnx-node` (Apache-2.0; it ships no type declarations) that Parley uses: Silero VAD
 * and VITS/Piper voices. Loaded on first use, so a process that never speaks never maps the native addon.
 */

export interface SherpaSpeechSegment {
  /** Index of the segment's first sample in the stream. */
  start: number;
  samples: Float32Array;
}

export interface SherpaVad {
  acceptWaveform(samples: Float32Array): void;
  isDetected(): boolean;
  isEmpty(): boolean;
  /** `false` copies the samples out of native memory, which `pop()` frees. */
  front(enableExternalBuffer: boolean): SherpaSpeechSegment;
  pop(): void;
  /** Forgets the audio heard so far and the model's state, as if new. */
  reset(): void;
}

export interface SherpaVadConfig {
  sileroVad: { model: string; threshold: number; minSpeechDuration: number; minSilenceDuration: number; maxSpeechDuration: number; windowSize: number };
  sampleRate: number;
  numThreads: number;
  debug: boolean;
}

export interface SherpaTtsConfig {
  model: { vits: { model: string; tokens: string; dataDir: string }; numThreads: number; debug: boolean; provider: 'cpu' };
  maxNumSentences: number;
}

export interface SherpaTtsRequest {
  text: string;
  sid: number;
  speed: number;
  /** One call per synthesized sentence; returning 0 stops the synthesis. */
  onProgress: (info: { samples: Float32Array; progress: number }) => number;
}

export interface SherpaOfflineTts {
  readonly sampleRate: number;
  generateAsync(request: SherpaTtsRequest): Promise<{ samples: Float32Array; sampleRate: number }>;
}

interface SherpaModule {
  Vad: new (config: SherpaVadConfig, bufferSizeInSeconds: number) => SherpaVad;
  OfflineTts: { createAsync(config: SherpaTtsConfig): Promise<SherpaOfflineTts> };
}

let loaded: SherpaModule | undefined;

export function sherpa(): SherpaModule {
  loaded ??= createRequire(import.meta.url)('sherpa-onnx-node') as SherpaModule;
  return loaded;
}
