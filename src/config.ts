import fs from 'node:fs';
import path from 'node:path';
import { decodeAppKey } from './lib/secrets.ts';

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
  /** The media gateway: WebSocket streams of calls (carrier media, web calls), beside the HTTP API. */
  media: {
    port: number;
    /** Base URL (`ws:` or `wss:`) that carriers and browsers use to reach the media gateway. */
    publicUrl: string;
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
  realtime: {
    provider: 'openai';
    /** The OpenAI Realtime-compatible WebSocket endpoint (`wss://…/v1/realtime`), without query. */
    url: string;
    apiKey: string | undefined;
    /** The model name sent when an assistant's model is not a realtime model of the catalog. */
    defaultModel: string;
  } | undefined;
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
  /** An OpenAI-compatible `/v1/embeddings` service; `undefined` means retrieval uses full text alone. */
  embeddings: {
    baseUrl: string;
    model: string;
    dimensions: number;
    apiKey: string | undefined;
    batchSize: number;
  } | undefined;
  /** Speech-to-text: `local` is Whisper tiny.en in a pool of Python workers; the others are hosted services (`.env.example`). */
  stt:
    | { provider: 'local' }
    | { provider: 'deepgram'; url: string; apiKey: string; model: string }
    | { provider: 'openai'; baseUrl: string; apiKey: string | undefined; model: string };
  /**
   * Text-to-speech by default: `local` is Piper, or espeak-ng when the Piper voice is not installed; `espeak`
   * forces espeak-ng; the others are hosted services (`.env.example`).
   */
  tts:
    | { provider: 'local' | 'espeak' }
    | { provider: 'elevenlabs'; url: string; apiKey: string; model: string }
    | { provider: 'openai'; baseUrl: string; apiKey: string | undefined; model: string };
  storage: {
    /** Where uploaded files and ingestion work files live. */
    dir: string;
  };
  /** Speech for calls. `local` is the offline stack of scripts/install-speech.sh, loaded on first use. */
  speech: {
    /** Where scripts/install-speech.sh put the models and the Whisper worker's Python venv. */
    dir: string;
    /** Whisper worker processes (one thread each) and utterances that may wait for one before new ones are refused. */
    whisperWorkers: number;
    whisperQueueLimit: number;
    /** Piper voices loaded at once (one thread each); more synthesize in parallel, at ~250 MB each. */
    piperInstances: number;
  };
  /** Bounds on one document's ingestion, so a hostile or huge file fails alone instead of starving the service. */
  ingestion: {
    /** Characters of extracted text beyond which a document fails (docs/decisions.md: fail, never truncate). */
    maxCharacters: number;
    /** Chunks beyond which a document fails. */
    maxChunks: number;
    /** How long text extraction, or chunking (each in a process of its own), may run before the document fails. */
    extractTimeoutMs: number;
    /** The heap of each of those processes; a file that needs more fails. */
    extractMemoryMb: number;
  };
}

export class ConfigError extends Error {
  override name = 'ConfigError';
  readonly variable: string;
  constructor(variable: string, problem: string) {
    super(`${variable} ${problem}`);
    this.variable = variable;
  }
}

type Env = Record<string, string | undefined>;

/** Reads `.env` (or PARLEY_ENV_FILE) into process.env, without overriding what the environment already sets. */
export function loadEnvFile(): void {
  const file = process.env.PARLEY_ENV_FILE ?? '.env';
  if (fs.existsSync(file)) process.loadEnvFile(file);
}

class Reader {
  private readonly env: Env;
  constructor(env: Env) {
    this.env = env;
  }

  string(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === '' ? undefined : value;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (!/^-?\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}".`);
    const value = Number(raw);
    if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}.`);
    return value;
  }

  port(name: string, fallback: number): number {
    return this.integer(name, fallback, 1, 65535);
  }

  boolean(name: string, fallback: boolean): boolean {
    const raw = this.string(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
    if (['0', 'false', 'no', 'off'].includes(raw)) return false;
    throw new ConfigError(name, `must be true or false, got "${raw}".`);
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}".`);
    }
    return raw as T;
  }

  url(name: string, protocols: string[]): string | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      throw new ConfigError(name, `must be a URL, got "${redact(raw)}".`);
    }
    if (!protocols.includes(parsed.protocol)) {
      throw new ConfigError(name, `must use ${protocols.join(' or ')}, got "${parsed.protocol}".`);
    }
    return raw;
  }

  /** A duration such as `30d`, `12h`, `15m`, `90s` or a bare number of seconds. */
  duration(name: string, fallbackSeconds: number): number {
    const raw = this.string(name);
    if (raw === undefined) return fallbackSeconds;
    const match = /^(\d+)\s*([smhd]?)$/.exec(raw);
    if (!match) throw new ConfigError(name, `must be a duration like 30d, 12h, 15m or 90s, got "${raw}".`);
    const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
    const seconds = Number(match[1]) * unit;
    if (seconds <= 0) throw new ConfigError(name, 'must be longer than zero.');
    return seconds;
  }

  usd(name: string, fallback: number): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (!/^\d+(\.\d{1,6})?$/.test(raw)) throw new ConfigError(name, `must be an amount in USD like 5 or 2.50, got "${raw}".`);
    return Math.round(Number(raw) * 1_000_000);
  }

  bytes(name: string, fallback: number): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    const match = /^(\d+)\s*(b|kb|mb)?$/i.exec(raw);
    if (!match) throw new ConfigError(name, `must be a size like 1mb or 512kb, got "${raw}".`);
    const unit = { b: 1, kb: 1024, mb: 1024 * 1024 }[(match[2] ?? 'b').toLowerCase() as 'b' | 'kb' | 'mb'];
    return Number(match[1]) * unit;
  }

  list(name: string): string[] {
    return (this.string(name) ?? '').split(',').map((item) => item.trim()).filter(Boolean);
  }
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

export function loadConfig(env: Env = process.env): Config {
  const read = new Reader(env);
  const nodeEnv = read.oneOf('NODE_ENV', ['development', 'production', 'test'] as const, 'development');
  const port = read.port('PORT', 8080);
  const host = read.string('HOST') ?? '127.0.0.1';
  const publicUrl = (read.url('PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const mediaPort = read.port('MEDIA_PORT', 8081);
  if (mediaPort === port) throw new ConfigError('MEDIA_PORT', 'must differ from PORT.');
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
    media: {
      port: mediaPort,
      publicUrl: (read.url('MEDIA_PUBLIC_URL', ['ws:', 'wss:']) ?? mediaUrlBeside(publicUrl, mediaPort)).replace(/\/+$/, ''),
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
    stt: readSpeechToText(read),
    tts: readTextToSpeech(read),
    storage: {
      dir: path.resolve(read.string('STORAGE_DIR') ?? path.join(read.string('DATA_DIR') ?? '.data', 'uploads')),
    },
    ingestion: readIngestion(read),
    speech: {
      dir: path.resolve(read.string('SPEECH_DIR') ?? '.tools/speech'),
      whisperWorkers: read.integer('STT_LOCAL_WORKERS', 2, 1, 64),
      whisperQueueLimit: read.integer('STT_LOCAL_QUEUE_LIMIT', 32, 1, 10_000),
      piperInstances: read.integer('TTS_LOCAL_INSTANCES', 2, 1, 64),
    },
  };
}

/** The media gateway on the public host of the API, on its own port: `https://host` gives `wss://host:8081`. */
function mediaUrlBeside(publicUrl: string, mediaPort: number): string {
  const url = new URL(publicUrl);
  return `${url.protocol === 'https:' ? 'wss:' : 'ws:'}//${url.hostname}:${mediaPort}`;
}

// The extraction and chunking activities' start-to-close timeout (workflows/document-ingestion.ts) is 10
// minutes: the deadline stays well inside it, so a slow file ends with the deadline's reason, never a
// timed-out retry.
const maxExtractTimeoutSeconds = 5 * 60;

function readIngestion(read: Reader): Config['ingestion'] {
  const timeoutSeconds = read.duration('INGEST_EXTRACT_TIMEOUT', 120);
  if (timeoutSeconds > maxExtractTimeoutSeconds) throw new ConfigError('INGEST_EXTRACT_TIMEOUT', `must be at most ${maxExtractTimeoutSeconds / 60}m, got ${timeoutSeconds}s.`);
  return {
    maxCharacters: read.integer('INGEST_MAX_CHARACTERS', 5_000_000, 1000, 100_000_000),
    maxChunks: read.integer('INGEST_MAX_CHUNKS', 10_000, 1, 1_000_000),
    extractTimeoutMs: timeoutSeconds * 1000,
    extractMemoryMb: read.integer('INGEST_EXTRACT_MEMORY_MB', 512, 64, 16_384),
  };
}

const openAiRealtimeUrl = 'wss://api.openai.com/v1/realtime';

/** On when a key or an endpoint is given (REALTIME_PROVIDER=none turns it off); OpenAI's endpoint needs a key. */
function readRealtime(read: Reader): Config['realtime'] {
  const apiKey = read.string('REALTIME_API_KEY');
  const url = read.url('REALTIME_URL', ['ws:', 'wss:'])?.replace(/\/+$/, '');
  const provider = read.oneOf('REALTIME_PROVIDER', ['openai', 'none'] as const, apiKey || url ? 'openai' : 'none');
  if (provider === 'none') return undefined;
  if (!apiKey && (url ?? openAiRealtimeUrl) === openAiRealtimeUrl) {
    throw new ConfigError('REALTIME_API_KEY', `is required for OpenAI's Realtime API (a compatible server of REALTIME_URL may take none).`);
  }
  return { provider, url: url ?? openAiRealtimeUrl, apiKey, defaultModel: read.string('REALTIME_MODEL') ?? 'gpt-realtime' };
}

function readEmbeddings(read: Reader): Config['embeddings'] {
  const baseUrl = read.url('EMBEDDINGS_BASE_URL', ['http:', 'https:']);
  if (baseUrl === undefined) return undefined;
  const model = read.string('EMBEDDINGS_MODEL');
  if (model === undefined) throw new ConfigError('EMBEDDINGS_MODEL', 'is required when EMBEDDINGS_BASE_URL is set.');
  if (read.string('EMBEDDINGS_DIMENSIONS') === undefined) throw new ConfigError('EMBEDDINGS_DIMENSIONS', 'is required when EMBEDDINGS_BASE_URL is set.');
  return {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    model,
    // pgvector indexes a `vector` of at most 2000 dimensions.
    dimensions: read.integer('EMBEDDINGS_DIMENSIONS', 0, 1, 2000),
    apiKey: read.string('EMBEDDINGS_API_KEY'),
    batchSize: read.integer('EMBEDDINGS_BATCH_SIZE', 64, 1, 2048),
  };
}

/**
 * An OpenAI-compatible speech endpoint (`OPENAI_STT_*` or `OPENAI_TTS_*`). Without a base URL of its own it
 * uses the language model's server and key; a base URL of its own never receives LLM_API_KEY, which belongs
 * to another server.
 */
function readOpenAiSpeech(read: Reader, prefix: 'OPENAI_STT' | 'OPENAI_TTS', provider: string, defaultModel: string) {
  const own = read.url(`${prefix}_BASE_URL`, ['http:', 'https:']);
  const baseUrl = own ?? read.url('LLM_BASE_URL', ['http:', 'https:']);
  if (baseUrl === undefined) throw new ConfigError(`${prefix}_BASE_URL`, `is required when ${provider} is openai and LLM_BASE_URL is unset.`);
  return {
    provider: 'openai' as const,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    apiKey: read.string(`${prefix}_API_KEY`) ?? (own === undefined ? read.string('LLM_API_KEY') : undefined),
    model: read.string(`${prefix}_MODEL`) ?? defaultModel,
  };
}

function requiredKey(read: Reader, name: string, provider: string): string {
  const key = read.string(name);
  if (key === undefined) throw new ConfigError(name, `is required when ${provider}.`);
  return key;
}

function readSpeechToText(read: Reader): Config['stt'] {
  const provider = read.oneOf('STT_PROVIDER', ['local', 'deepgram', 'openai'] as const, 'local');
  if (provider === 'openai') return readOpenAiSpeech(read, 'OPENAI_STT', 'STT_PROVIDER', 'whisper-1');
  if (provider === 'local') return { provider };
  return {
    provider,
    url: (read.url('DEEPGRAM_URL', ['ws:', 'wss:']) ?? 'wss://api.deepgram.com').replace(/\/+$/, ''),
    apiKey: requiredKey(read, 'DEEPGRAM_API_KEY', 'STT_PROVIDER is deepgram'),
    model: read.string('DEEPGRAM_MODEL') ?? 'nova-2',
  };
}

function readTextToSpeech(read: Reader): Config['tts'] {
  const provider = read.oneOf('TTS_PROVIDER', ['local', 'espeak', 'elevenlabs', 'openai'] as const, 'local');
  if (provider === 'openai') return readOpenAiSpeech(read, 'OPENAI_TTS', 'TTS_PROVIDER', 'gpt-4o-mini-tts');
  if (provider === 'local' || provider === 'espeak') return { provider };
  return {
    provider,
    url: (read.url('ELEVENLABS_URL', ['http:', 'https:']) ?? 'https://api.elevenlabs.io').replace(/\/+$/, ''),
    apiKey: requiredKey(read, 'ELEVENLABS_API_KEY', 'TTS_PROVIDER is elevenlabs'),
    model: read.string('ELEVENLABS_MODEL') ?? 'eleven_flash_v2_5',
  };
}
