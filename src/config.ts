import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from './config/error.ts';
import { readEmbeddings, readIngestion, type EmbeddingsConfig, type IngestionConfig } from './config/knowledge.ts';
import { Reader, type Env } from './config/reader.ts';
import { readPayments, type PaymentsConfig } from './config/payments.ts';
import { readSip, type SipConfig } from './config/sip.ts';
import { readTelephony, type TelephonyConfig } from './config/telephony.ts';
import { defaultMaxCalls, readRealtime, readSpeechToText, readTextToSpeech } from './config/speech.ts';
import type { RealtimeConfig, SpeechConfig, SpeechToTextConfig, TextToSpeechConfig } from './config/types.ts';
import { decodeAppKey } from './lib/secrets.ts';

export { ConfigError };
export type { EmbeddingsConfig, IngestionConfig, PaymentsConfig, SipConfig };
export type { RealtimeConfig, SpeechConfig, SpeechToTextConfig, TextToSpeechConfig };

/** A bought number's subscription period: calendar months, or a fixed length (SUBSCRIPTION_PERIOD, for tests only). */
export type SubscriptionPeriod = { months: 1 } | { ms: number };

export const MONTHLY: SubscriptionPeriod = { months: 1 };

/**
 * Every environment variable Parley reads, parsed and validated once at start-up.
 * `.env.example` documents each of them; keep the two in step.
 */
export interface Config {
  env: 'development' | 'production' | 'test';
  dataDir: string;
  host: string;
  port: number;
  /** Base URL that clients use to reach the API, without the `/api` suffix. */
  publicUrl: string;
  /** Base64 of 32 bytes that encrypt secrets at rest; unset means `DATA_DIR/app.key` (embedded default only). */
  appKey: string | undefined;
  /** How long a stopping process lets requests and calls in flight finish before it closes them. */
  drainTimeoutMs: number;
  /**
   * GET /metrics (Prometheus text) on a port of its own, never the API's; `port` undefined: not served.
   * `token`, when set, must also be presented as a bearer token.
   */
  metrics: {
    port: number | undefined;
    host: string;
    token: string | undefined;
  };
  /** The media gateway: WebSocket streams of calls (carrier media, web calls), beside the HTTP API. */
  media: {
    port: number;
    /** Base URL (`ws:` or `wss:`) that carriers and browsers use to reach the media gateway. */
    publicUrl: string;
    /**
     * Base URL (`http:`) at which the platform's own processes reach this replica's control routes (a call's
     * hang-up); undefined: the address it listens on.
     */
    internalUrl: string | undefined;
    /**
     * Calls this replica holds at once; a further call is refused with 1013 (try again later). The default
     * is what the speech stack holds per CPU core (docs/decisions.md): 4 with Piper, 8 with espeak-ng and
     * local Whisper, 100 with hosted speech (8, 16 and 200 on two cores).
     */
    maxCalls: number;
  };
  database: {
    /** A PostgreSQL server; `undefined` means the embedded PGlite under `dataDir`. */
    url: string | undefined;
    poolMax: number;
  };
  temporal: {
    /** An existing Temporal frontend; `undefined` means `npm start` runs the dev server itself. */
    address: string | undefined;
    namespace: string;
    taskQueue: string;
    devServerPort: number;
    devServerUiPort: number;
    /** Explicit path to the `temporal` CLI, otherwise found on PATH or in `./.tools/bin`. */
    cliPath: string | undefined;
  };
  log: {
    level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
    pretty: boolean;
  };
  http: {
    bodyLimitBytes: number;
    corsOrigins: string[];
    rateLimitPerMinute: number;
    /** Whether X-Forwarded-* headers name the client: only behind a proxy that sets them. */
    trustProxy: boolean;
  };
  llm: {
    /** An OpenAI-compatible endpoint (…/v1); unset means no language model, and chats say how to set one. */
    baseUrl: string | undefined;
    /** Sent as a bearer token; local servers (Ollama, llama.cpp) take none. */
    apiKey: string | undefined;
    /** The longest wait for the answer to start, and between two pieces of the stream. */
    timeoutMs: number;
    /** The model name sent when an assistant's model is not in the models catalog. */
    defaultModel: string;
  };
  /** A speech-to-speech model for assistants with `engine_type: multimodal`; `undefined` means none is configured. */
  realtime: RealtimeConfig;
  auth: {
    allowRegistration: boolean;
    signupCreditMicros: number;
    sessionTtlSeconds: number;
    /** Failed logins per email and client address before a lockout of `loginLockoutSeconds`. */
    loginMaxAttempts: number;
    loginLockoutSeconds: number;
    /** Failed logins per account from every address within `loginAccountWindowSeconds` before a short lockout. */
    loginAccountMaxAttempts: number;
    loginAccountWindowSeconds: number;
    loginAccountLockoutSeconds: number;
  };
  /** Free test chats anyone with an assistant's UUID may run, limited because they cost its owner model calls. */
  testChats: {
    perAssistantPerHour: number;
    perAddressPerMinute: number;
  };
  /** The guarded client for user-supplied URLs (lib/safe-fetch.ts): scraping, tools, webhooks. */
  fetch: {
    /** Host names, addresses or CIDR ranges let through although private; empty in production. */
    allowHosts: string[];
    timeoutMs: number;
    maxBytes: number;
    userAgent: string;
  };
  /** An OpenAI-compatible `/v1/embeddings` service; `undefined` means retrieval uses full text alone (config/knowledge.ts). */
  embeddings: EmbeddingsConfig;
  stt: SpeechToTextConfig;
  tts: TextToSpeechConfig;
  storage: {
    /** Where uploaded files and ingestion work files live. */
    dir: string;
  };
  speech: SpeechConfig;
  /** PAYMENTS_PROVIDER and its credentials (config/payments.ts); secrets that are never logged. */
  payments: PaymentsConfig;
  /** TELEPHONY_PROVIDER and its credentials (config/telephony.ts); the auth token is never logged. */
  telephony: TelephonyConfig;
  /** The SIP gateway for SIP trunks (config/sip.ts). */
  sip: SipConfig;
  /**
   * A bought number's subscription period: calendar months, or SUBSCRIPTION_PERIOD for tests only, where a
   * whole subscription's life (renewals, retries, release) has to pass in seconds.
   */
  subscriptionPeriod: SubscriptionPeriod;
  /** The deployment's region as the numbers list shows it (REGION). */
  region: string;
  /**
   * What one unit of a campaign's `retry_interval` lasts: a minute, or a second under CAMPAIGN_RETRY_UNIT=second,
   * a setting for tests and demos where a campaign's retries have to pass in seconds.
   */
  campaignRetryUnitMs: number;
  /**
   * The share of an account's concurrent calls (its plan's limit, in percent, rounded down to whole calls) that
   * campaigns leave free for inbound and other calls (CAMPAIGN_INBOUND_RESERVE), as Retell's batch calls reserve
   * concurrency: an account of 10 lines at 20% dials at most 8 campaign calls at once.
   */
  campaignInboundReservePercent: number;
  /**
   * What one unit of an assistant's `conversation_inactivity_timeout` lasts: a minute, or a second under
   * CONVERSATION_INACTIVITY_UNIT=second, for tests and demos where a chat has to go quiet in seconds.
   */
  conversationInactivityUnitMs: number;
  /** Bounds on one document's ingestion, so a hostile or huge file fails alone (config/knowledge.ts). */
  ingestion: IngestionConfig;
}

/** Reads `.env` (or PARLEY_ENV_FILE) into process.env, without overriding what the environment already sets. */
export function loadEnvFile(): void {
  const file = process.env.PARLEY_ENV_FILE ?? '.env';
  if (fs.existsSync(file)) process.loadEnvFile(file);
}

/** `cores`: the CPU cores the speech pools and the media replica's line count are sized from. */
export function loadConfig(env: Env = process.env, cores = os.availableParallelism()): Config {
  const read = new Reader(env);
  const nodeEnv = read.oneOf('NODE_ENV', ['development', 'production', 'test'] as const, 'development');
  const port = read.port('PORT', 8080);
  const host = read.string('HOST') ?? '127.0.0.1';
  const publicUrl = (read.url('PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const mediaPort = read.port('MEDIA_PORT', 8081);
  const stt = readSpeechToText(read);
  const tts = readTextToSpeech(read);
  if (mediaPort === port) throw new ConfigError('MEDIA_PORT', 'must differ from PORT.');
  const metricsPort = read.string('METRICS_PORT') === undefined ? undefined : read.port('METRICS_PORT', 0);
  if (metricsPort === port || metricsPort === mediaPort) throw new ConfigError('METRICS_PORT', 'must differ from PORT and MEDIA_PORT: metrics are never served on a public port.');
  const temporalPort = read.port('TEMPORAL_PORT', 7233);
  const temporalUiPort = read.port('TEMPORAL_UI_PORT', 8233);
  if (temporalPort === temporalUiPort) throw new ConfigError('TEMPORAL_UI_PORT', 'must differ from TEMPORAL_PORT.');

  const logFormat = read.oneOf('LOG_FORMAT', ['auto', 'json', 'pretty'] as const, 'auto');
  const temporalAddress = read.string('TEMPORAL_ADDRESS');
  if (temporalAddress !== undefined && !/^[\w.-]+:\d{1,5}$/.test(temporalAddress)) {
    throw new ConfigError('TEMPORAL_ADDRESS', `must look like host:port, got "${temporalAddress}".`);
  }

  const appKey = read.string('APP_KEY');
  if (appKey !== undefined && !decodeAppKey(appKey)) {
    throw new ConfigError('APP_KEY', 'must be 32 random bytes in base64 (make one with: openssl rand -base64 32).');
  }

  return {
    env: nodeEnv,
    dataDir: path.resolve(read.string('DATA_DIR') ?? '.data'),
    host,
    port,
    publicUrl,
    appKey,
    drainTimeoutMs: read.duration('DRAIN_TIMEOUT', 8) * 1000,
    metrics: { port: metricsPort, host: read.string('METRICS_HOST') ?? host, token: read.string('METRICS_TOKEN') },
    media: {
      port: mediaPort,
      publicUrl: (read.url('MEDIA_PUBLIC_URL', ['ws:', 'wss:']) ?? mediaUrlBeside(publicUrl, mediaPort)).replace(/\/+$/, ''),
      internalUrl: read.url('MEDIA_INTERNAL_URL', ['http:', 'https:'])?.replace(/\/+$/, ''),
      maxCalls: read.integer('MEDIA_MAX_CALLS', defaultMaxCalls(stt, tts, cores), 1, 100_000),
    },
    database: {
      url: read.url('DATABASE_URL', ['postgres:', 'postgresql:']),
      poolMax: read.integer('DATABASE_POOL_MAX', 10, 1, 500),
    },
    temporal: {
      address: temporalAddress,
      namespace: read.string('TEMPORAL_NAMESPACE') ?? 'default',
      taskQueue: read.string('TEMPORAL_TASK_QUEUE') ?? 'parley',
      devServerPort: temporalPort,
      devServerUiPort: temporalUiPort,
      cliPath: read.string('TEMPORAL_CLI'),
    },
    log: {
      level: read.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
      pretty: logFormat === 'pretty' || (logFormat === 'auto' && process.stdout.isTTY === true),
    },
    http: {
      bodyLimitBytes: read.bytes('BODY_LIMIT', 1024 * 1024),
      corsOrigins: read.list('CORS_ORIGINS'),
      rateLimitPerMinute: read.integer('RATE_LIMIT_PER_MINUTE', 600, 1, 1_000_000),
      trustProxy: read.boolean('TRUST_PROXY', false),
    },
    llm: {
      baseUrl: read.url('LLM_BASE_URL', ['http:', 'https:'])?.replace(/\/+$/, ''),
      apiKey: read.string('LLM_API_KEY'),
      timeoutMs: read.duration('LLM_TIMEOUT', 60) * 1000,
      defaultModel: read.string('LLM_MODEL') ?? 'gpt-4o-mini',
    },
    realtime: readRealtime(read),
    auth: {
      allowRegistration: read.boolean('ALLOW_REGISTRATION', nodeEnv !== 'production'),
      signupCreditMicros: read.usd('SIGNUP_CREDIT_USD', 0),
      sessionTtlSeconds: read.duration('SESSION_TTL', 30 * 86400),
      loginMaxAttempts: read.integer('LOGIN_MAX_ATTEMPTS', 5, 1, 1000),
      loginLockoutSeconds: read.duration('LOGIN_LOCKOUT', 60),
      loginAccountMaxAttempts: read.integer('LOGIN_ACCOUNT_MAX_ATTEMPTS', 20, 1, 100_000),
      loginAccountWindowSeconds: read.duration('LOGIN_ACCOUNT_WINDOW', 15 * 60),
      loginAccountLockoutSeconds: read.duration('LOGIN_ACCOUNT_LOCKOUT', 60),
    },
    testChats: {
      perAssistantPerHour: read.integer('TEST_CHAT_PER_ASSISTANT_PER_HOUR', 200, 1, 1_000_000),
      perAddressPerMinute: read.integer('TEST_CHAT_PER_ADDRESS_PER_MINUTE', 20, 1, 1_000_000),
    },
    fetch: {
      allowHosts: read.list('FETCH_ALLOW_HOSTS'),
      timeoutMs: read.duration('FETCH_TIMEOUT', 15) * 1000,
      maxBytes: read.bytes('FETCH_MAX_BYTES', 5 * 1024 * 1024),
      userAgent: read.string('FETCH_USER_AGENT') ?? 'ParleyBot/0.1',
    },
    embeddings: readEmbeddings(read),
    stt,
    tts,
    storage: {
      dir: path.resolve(read.string('STORAGE_DIR') ?? path.join(read.string('DATA_DIR') ?? '.data', 'uploads')),
    },
    ingestion: readIngestion(read),
    payments: readPayments(read),
    telephony: readTelephony(read),
    sip: readSip(read),
    region: read.string('REGION') ?? 'us1',
    campaignRetryUnitMs: readMinuteUnit('CAMPAIGN_RETRY_UNIT', read.string('CAMPAIGN_RETRY_UNIT')),
    campaignInboundReservePercent: read.integer('CAMPAIGN_INBOUND_RESERVE', 20, 0, 90),
    conversationInactivityUnitMs: readMinuteUnit('CONVERSATION_INACTIVITY_UNIT', read.string('CONVERSATION_INACTIVITY_UNIT')),
    subscriptionPeriod: read.string('SUBSCRIPTION_PERIOD') === undefined ? MONTHLY : { ms: read.duration('SUBSCRIPTION_PERIOD', 1) * 1000 },
    speech: {
      dir: path.resolve(read.string('SPEECH_DIR') ?? '.tools/speech'),
      multilingual: read.boolean('SPEECH_MULTILINGUAL', true),
      // One Whisper process and one Piper voice a core: each runs on one thread.
      whisperWorkers: read.integer('STT_LOCAL_WORKERS', cores, 1, 64),
      whisperQueueLimit: read.integer('STT_LOCAL_QUEUE_LIMIT', 32, 1, 10_000),
      piperInstances: read.integer('TTS_LOCAL_INSTANCES', cores, 1, 64),
      vadThreads: read.integer('VAD_THREADS', 1, 1, 64),
    },
  };
}

/** The media gateway on the public host of the API, on its own port: `https://host` gives `wss://host:8081`. */
function mediaUrlBeside(publicUrl: string, mediaPort: number): string {
  const url = new URL(publicUrl);
  return `${url.protocol === 'https:' ? 'wss:' : 'ws:'}//${url.hostname}:${mediaPort}`;
}

/** A setting counted in minutes, or in seconds for tests and demos: `minute` (the default) or `second`, in ms. */
function readMinuteUnit(name: string, unit: string | undefined): number {
  if (unit === undefined || unit === 'minute') return 60_000;
  if (unit === 'second') return 1000;
  throw new ConfigError(name, `must be minute or second, got "${unit}".`);
}
