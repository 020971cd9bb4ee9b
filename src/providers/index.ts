import type { Knex } from 'knex';
import type { Config } from '../config.ts';
import { resolveAppKey } from '../lib/app-key.ts';
import { mediaControlToken } from '../lib/media-control.ts';
import { sipControlToken } from '../lib/sip-control.ts';
import { createSafeFetch, type SafeFetch } from '../lib/safe-fetch.ts';
import { createSecretBox, type SecretBox } from '../lib/secrets.ts';
import type { Logger } from '../logger.ts';
import { createEmbeddingsProvider, type EmbeddingsProvider } from './embeddings/index.ts';
import { createLanguageModel, type LanguageModel } from './llm/index.ts';
import { createMediaControl, type MediaControl } from './media-control/index.ts';
import { createPayments, type PaymentProvider } from './payments/index.ts';
import { createRealtimeModel, type RealtimeModel } from './realtime/index.ts';
import { createSpeech, type SpeechSynthesizers } from './speech.ts';
import { createFilesystemStorage } from './storage/filesystem.ts';
import type { FileStorage } from './storage/index.ts';
import type { SpeechToText } from './stt/types.ts';
import { createTelephony } from './telephony/index.ts';
import { createSipTrunkCarrier } from './telephony/sip-trunks.ts';
import type { CarrierCalls, TelephonyProvider } from './telephony/types.ts';
import type { TurnDetector } from './turn/types.ts';
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
  /** Asks the media replica holding a call's session to end it (the call workflow's hang-up). */
  mediaControl: MediaControl;
  /** Speech-to-text of STT_PROVIDER. */
  stt: SpeechToText;
  /** Text-to-speech by the catalog's synthesizer provider code, and TTS_PROVIDER's default. */
  tts: SpeechSynthesizers;
  /** Voice activity detection, one detector per call. */
  vad: VadFactory;
  /**
   * The turn model, which hears from the caller's voice whether they have finished speaking; undefined: the
   * end of a turn is decided by the silence and the words alone.
   */
  turn: TurnDetector | undefined;
  /** The speech-to-speech model of REALTIME_* for `engine_type: multimodal`; undefined when none is configured. */
  realtime: RealtimeModel | undefined;
  /** Customers, cards and charges at PAYMENTS_PROVIDER (the sandbox unless Stripe is configured). */
  payments: PaymentProvider;
  /** Numbers offered, provisioned and released at the carrier of TELEPHONY_PROVIDER (the sandbox carrier unless Twilio is configured). */
  telephony: TelephonyProvider;
  /** The calls of SIP trunks, placed and carried by Parley's SIP gateway (the sip role at SIP_CONTROL_URL). */
  sipTrunks: CarrierCalls;
  /** Ends what the adapters built here started (speech worker processes, loaded voices); the platform calls it on stop. */
  close(): Promise<void>;
}

/**
 * The composition root of adapters. `overrides` replaces any of them with an object of the same interface:
 * tests hand in fakes this way and get the rest of the graph exactly as production builds it. `database` gives
 * the adapters that keep state in Parley's own database (the sandbox payment provider and carrier) its connection, asked for
 * on first use because the process opens the database after building its providers.
 */
export function createProviders(
  config: Config,
  logger: Logger,
  overrides: Partial<Omit<Providers, 'close'>> = {},
  database: () => Knex = () => {
    throw new Error('these providers were built without a database');
  },
): Providers {
  // Resolved when first needed, so a process whose secrets are overridden and that never hangs up a call
  // never reads or writes a key file.
  let appKey: Buffer | undefined;
  const key = () => (appKey ??= resolveAppKey(config, logger));
  // Building speech starts nothing (models load and workers spawn on first use), so it is always built.
  const speech = createSpeech(config, logger);
  let secrets: SecretBox | undefined;
  const secretBox = () => (secrets ??= overrides.secrets ?? createSecretBox(key()));
  return {
    llm: 'llm' in overrides ? overrides.llm : createLanguageModel(config),
    embeddings: 'embeddings' in overrides ? overrides.embeddings : createEmbeddingsProvider(config),
    storage: overrides.storage ?? createFilesystemStorage(config.storage.dir),
    fetch: overrides.fetch ?? createSafeFetch(config.fetch),
    secrets: secretBox(),
    mediaControl: overrides.mediaControl ?? createMediaControl(() => mediaControlToken(key())),
    stt: overrides.stt ?? speech.stt,
    tts: overrides.tts ?? speech.tts,
    vad: overrides.vad ?? speech.vad,
    turn: 'turn' in overrides ? overrides.turn : speech.turn,
    realtime: 'realtime' in overrides ? overrides.realtime : createRealtimeModel(config),
    payments: overrides.payments ?? createPayments(config.payments, database),
    telephony: overrides.telephony ?? createTelephony(config, database, secretBox),
    sipTrunks: overrides.sipTrunks ?? createSipTrunkCarrier({ url: () => sipControlUrl(config), token: () => sipControlToken(secretBox()) }),
    close: () => speech.close(),
  };
}

/** Where the sip role's control API is: SIP_CONTROL_URL, or the port of a role on this machine. */
export function sipControlUrl(config: Pick<Config, 'sip'>): string {
  return config.sip.controlUrl ?? `http://127.0.0.1:${config.sip.controlPort}`;
}
