import { createRequire } from 'node:module';

/**
 * The part of `sherpa-onnx-node` (Apache-2.0; it ships no type declarations) that Parley uses: VITS/Piper
 * voices. Loaded on first use, so a process that never speaks never maps the native addon.
 */

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
  OfflineTts: { createAsync(config: SherpaTtsConfig): Promise<SherpaOfflineTts> };
}

let loaded: SherpaModule | undefined;

export function sherpa(): SherpaModule {
  loaded ??= createRequire(import.meta.url)('sherpa-onnx-node') as SherpaModule;
  return loaded;
}
