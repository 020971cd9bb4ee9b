import type { Config } from '../config.ts';
import { resolveAppKey } from '../lib/app-key.ts';
import { createSafeFetch, type SafeFetch } from '../lib/safe-fetch.ts';
import { createSecretBox, type SecretBox } from '../lib/secrets.ts';
import type { Logger } from '../logger.ts';
import { createEmbeddingsProvider, type EmbeddingsProvider } from './embeddings/index.ts';
import { createLanguageModel, type LanguageModel } from './llm/index.ts';
import { createSpeech, type SpeechSynthesizers } from './speech.ts';
import { createFilesystemStorage } from './storage/filesystem.ts';
import type { FileStorage } from './storage/index.ts';
import type { SpeechToText } from './stt/types.ts';
import type { VadFactory } from './vad/types.ts';

/**
 * Every adapter to the world outside, built once per process by `createProviders` and handed to the API,
 * the worker's activities and the media role. Nothing else constructs one.
 */
export interface Providers {
  /** The language model of LLM_BASE_URL; undefined when none is configured (chats answer 503). */
  llm: LanguageModel | undefined;
  /** Embeddings for hybrid retrieval; undefined means full-text search alone. */
  embeddings: EmbeddingsProvider | undefined;
  /** Uploads and ingestion work files. */
  storage: FileStorage;
  /** The guarded client for every URL a user supplies (tools, websites, webhooks). */
  fetch: SafeFetch;
  /** Encrypts secrets at rest with the app key. */
  secrets: SecretBox;
  /** Speech-to-text of STT_PROVIDER. */
  stt: SpeechToText;
  /** Text-to-speech by the catalog's synthesizer provider code, and TTS_PROVIDER's default. */
  tts: SpeechSynthesizers;
  /** Voice activity detection, one detector per call. */
  vad: VadFactory;
  /** Ends what the adapters built here started (speech worker processes, loaded voices); the platform calls it on stop. */
  close(): Promise<void>;
}

/**
 * The composition root of adapters. `overrides` replaces any of them with an object of the same interface:
 * tests hand in fakes this way and get the rest of the graph exactly as production builds it.
 */
export function createProviders(config: Config, logger: Logger, overrides: Partial<Omit<Providers, 'close'>> = {}): Providers {
  // Building speech starts nothing (models load and workers spawn on first use), so it is always built.
  const speech = createSpeech(config, logger);
  return {
    llm: 'llm' in overrides ? overrides.llm : createLanguageModel(config),
    embeddings: 'embeddings' in overrides ? overrides.embeddings : createEmbeddingsProvider(config),
    storage: overrides.storage ?? createFilesystemStorage(config.storage.dir),
    fetch: overrides.fetch ?? createSafeFetch(config.fetch),
    secrets: overrides.secrets ?? createSecretBox(resolveAppKey(config, logger)),
    stt: overrides.stt ?? speech.stt,
    tts: overrides.tts ?? speech.tts,
    vad: overrides.vad ?? speech.vad,
    close: () => speech.close(),
  };
}
