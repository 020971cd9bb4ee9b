import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { timingsAt } from '../../src/simulators/sandbox-carrier/callees.ts';

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('gives the embedded defaults when nothing is set', () => {
    const config = loadConfig({});
    expect(config.port).toBe(8080);
    expect(config.temporal.devServerPort).toBe(7233);
    expect(config.temporal.devServerUiPort).toBe(8233);
    expect(config.temporal.address).toBeUndefined();
    expect(config.database.url).toBeUndefined();
    expect(config.dataDir).toBe(path.resolve('.data'));
    expect(config.publicUrl).toBe('http://localhost:8080');
    expect(config.auth.allowRegistration).toBe(true);
    expect(config.auth.sessionTtlSeconds).toBe(30 * 86400);
    expect(config.http.rateLimitPerMinute).toBe(600);
  });

  it('speaks offline by default from .tools/speech, and refuses an unknown speech provider', () => {
    const defaults = loadConfig({}, 2);
    expect(defaults.speech).toEqual({ dir: path.resolve('.tools/speech'), multilingual: true, whisperWorkers: 2, whisperQueueLimit: 32, piperInstances: 2, vadThreads: 1 });
    expect(loadConfig({ SPEECH_MULTILINGUAL: 'false' }).speech.multilingual).toBe(false);
    // The speech pools are sized from the cores: a Whisper process and a Piper voice each.
    expect(loadConfig({}, 4).speech).toMatchObject({ whisperWorkers: 4, piperInstances: 4 });
    expect([defaults.stt.provider, defaults.tts.provider]).toEqual(['local', 'local']);
    const espeak = loadConfig({ SPEECH_DIR: '/opt/speech', TTS_PROVIDER: 'espeak', STT_LOCAL_WORKERS: '3', VAD_THREADS: '2' });
    expect(espeak.speech).toMatchObject({ dir: '/opt/speech', whisperWorkers: 3, vadThreads: 2 });
    expect(espeak.tts.provider).toBe('espeak');
    expect(configError({ TTS_PROVIDER: 'kokoro' }).variable).toBe('TTS_PROVIDER');
    expect(configError({ STT_LOCAL_WORKERS: '0' }).variable).toBe('STT_LOCAL_WORKERS');
    expect(configError({ VAD_THREADS: '0' }).variable).toBe('VAD_THREADS');
  });

  it('bounds ingestion by default, and keeps the extraction deadline inside the activity timeout', () => {
    expect(loadConfig({}).ingestion).toEqual({ maxCharacters: 5_000_000, maxChunks: 10_000, extractTimeoutMs: 120_000, extractMemoryMb: 512 });
    expect(loadConfig({ INGEST_MAX_CHARACTERS: '200000', INGEST_EXTRACT_TIMEOUT: '5m' }).ingestion).toMatchObject({ maxCharacters: 200_000, extractTimeoutMs: 300_000 });
    expect(configError({ INGEST_EXTRACT_TIMEOUT: '6m' }).message).toBe('INGEST_EXTRACT_TIMEOUT must be at most 5m, got 360s.');
    expect(configError({ INGEST_EXTRACT_MEMORY_MB: '16' }).variable).toBe('INGEST_EXTRACT_MEMORY_MB');
  });

  it('turns registration off by default in production, and lets it be turned back on', () => {
    expect(loadConfig({ NODE_ENV: 'production' }).auth.allowRegistration).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', ALLOW_REGISTRATION: 'true' }).auth.allowRegistration).toBe(true);
  });

  it('parses durations, sizes, money and lists', () => {
    const config = loadConfig({ SESSION_TTL: '12h', BODY_LIMIT: '2mb', SIGNUP_CREDIT_USD: '2.5', CORS_ORIGINS: 'https://a.example, https://b.example' });
    expect(config.auth.sessionTtlSeconds).toBe(43200);
    expect(config.http.bodyLimitBytes).toBe(2 * 1024 * 1024);
    expect(config.auth.signupCreditMicros).toBe(2_500_000);
    expect(config.http.corsOrigins).toEqual(['https://a.example', 'https://b.example']);
  });

  it('keeps the public URL without a trailing slash', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://voice.example.com/' }).publicUrl).toBe('https://voice.example.com');
  });

  it.each([
    ['PORT', 'eighty', 'PORT must be a whole number, got "eighty".'],
    ['PORT', '70000', 'PORT must be between 1 and 65535, got 70000.'],
    ['TEMPORAL_PORT', '0', 'TEMPORAL_PORT must be between 1 and 65535, got 0.'],
    ['NODE_ENV', 'staging', 'NODE_ENV must be one of development, production, test, got "staging".'],
    ['DATABASE_URL', 'mysql://x@y/z', 'DATABASE_URL must use postgres: or postgresql:, got "mysql:".'],
    ['DATABASE_URL', 'not a url', 'DATABASE_URL must be a URL, got "not a url".'],
    ['TEMPORAL_ADDRESS', 'http://temporal:7233', 'TEMPORAL_ADDRESS must look like host:port, got "http://temporal:7233".'],
    ['ALLOW_REGISTRATION', 'maybe', 'ALLOW_REGISTRATION must be true or false, got "maybe".'],
    ['SESSION_TTL', 'forever', 'SESSION_TTL must be a duration like 30d, 12h, 15m or 90s, got "forever".'],
    ['SIGNUP_CREDIT_USD', '-5', 'SIGNUP_CREDIT_USD must be an amount in USD like 5 or 2.50, got "-5".'],
    ['LOG_LEVEL', 'loud', 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud".'],
  ])('stops on a wrong %s (%s) with a message naming it', (variable, value, message) => {
    const error = configError({ [variable]: value });
    expect(error.variable).toBe(variable);
    expect(error.message).toBe(message);
  });

  it('does not print the password of a malformed database URL', () => {
    expect(configError({ DATABASE_URL: 'postgres://user:secret@host:port/db' }).message).not.toContain('secret');
  });

  it('turns the realtime model on with a key or an endpoint, and off by default or on request', () => {
    expect(loadConfig({}).realtime).toBeUndefined();
    expect(loadConfig({ REALTIME_API_KEY: 'sk-1' }).realtime).toEqual({ provider: 'openai', url: 'wss://api.openai.com/v1/realtime', apiKey: 'sk-1', defaultModel: 'gpt-realtime' });
    expect(loadConfig({ REALTIME_URL: 'ws://127.0.0.1:9000/v1/realtime/', REALTIME_MODEL: 'local-s2s' }).realtime).toEqual({ provider: 'openai', url: 'ws://127.0.0.1:9000/v1/realtime', apiKey: undefined, defaultModel: 'local-s2s' });
    expect(loadConfig({ REALTIME_API_KEY: 'sk-1', REALTIME_PROVIDER: 'none' }).realtime).toBeUndefined();
  });

  it('refuses a realtime configuration that cannot work', () => {
    expect(configError({ REALTIME_PROVIDER: 'openai' }).variable).toBe('REALTIME_API_KEY');
    expect(configError({ REALTIME_URL: 'https://api.openai.com/v1/realtime' }).message).toBe('REALTIME_URL must use ws: or wss:, got "https:".');
    expect(configError({ REALTIME_PROVIDER: 'gemini' }).variable).toBe('REALTIME_PROVIDER');
  });

  it('refuses the same port for Temporal and its UI', () => {
    expect(configError({ TEMPORAL_PORT: '9000', TEMPORAL_UI_PORT: '9000' }).variable).toBe('TEMPORAL_UI_PORT');
  });

  it('puts the media gateway on its own port of the public host, with the matching WebSocket scheme', () => {
    expect(loadConfig({}, 2).media).toEqual({ port: 8081, publicUrl: 'ws://localhost:8081', internalUrl: undefined, maxCalls: 8 });
    expect(loadConfig({ PUBLIC_URL: 'https://voice.example.com', MEDIA_PORT: '9443' }).media.publicUrl).toBe('wss://voice.example.com:9443');
    expect(loadConfig({ MEDIA_PUBLIC_URL: 'wss://media.example.com/' }).media.publicUrl).toBe('wss://media.example.com');
    expect(loadConfig({ MEDIA_INTERNAL_URL: 'http://10.0.0.7:8081/' }).media.internalUrl).toBe('http://10.0.0.7:8081');
  });

  it('holds as many calls per replica as its speech stack sustains, unless told otherwise', () => {
    expect(loadConfig({}, 2).media.maxCalls).toBe(8);
    expect(loadConfig({}, 8).media.maxCalls).toBe(32);
    expect(loadConfig({ TTS_PROVIDER: 'espeak' }, 2).media.maxCalls).toBe(16);
    expect(loadConfig({ STT_PROVIDER: 'deepgram', DEEPGRAM_API_KEY: 'k', TTS_PROVIDER: 'elevenlabs', ELEVENLABS_API_KEY: 'k' }, 2).media.maxCalls).toBe(200);
    expect(loadConfig({ MEDIA_MAX_CALLS: '40' }).media.maxCalls).toBe(40);
    expect(configError({ MEDIA_MAX_CALLS: '0' }).variable).toBe('MEDIA_MAX_CALLS');
  });

  it('refuses a media port equal to PORT and a media URL that is not a WebSocket URL', () => {
    expect(configError({ PORT: '9000', MEDIA_PORT: '9000' }).message).toBe('MEDIA_PORT must differ from PORT.');
    expect(configError({ MEDIA_PUBLIC_URL: 'https://media.example.com' }).message).toBe('MEDIA_PUBLIC_URL must use ws: or wss:, got "https:".');
  });

  it('serves metrics only when METRICS_PORT is set, never on a public port', () => {
    expect(loadConfig({}).metrics).toEqual({ port: undefined, host: '127.0.0.1', token: undefined });
    expect(loadConfig({ HOST: '0.0.0.0', METRICS_PORT: '9464', METRICS_TOKEN: 'secret' }).metrics).toEqual({ port: 9464, host: '0.0.0.0', token: 'secret' });
    expect(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '10.0.0.5' }).metrics.host).toBe('10.0.0.5');
    const clashes: Record<string, string>[] = [{ PORT: '9000', METRICS_PORT: '9000' }, { MEDIA_PORT: '9001', METRICS_PORT: '9001' }];
    for (const clash of clashes) {
      expect(configError(clash).message).toBe('METRICS_PORT must differ from PORT and MEDIA_PORT: metrics are never served on a public port.');
    }
    expect(configError({ METRICS_PORT: '0' }).variable).toBe('METRICS_PORT');
  });

  it('reads how long a stop may drain work in flight', () => {
    expect(loadConfig({}).drainTimeoutMs).toBe(8000);
    expect(loadConfig({ DRAIN_TIMEOUT: '2m' }).drainTimeoutMs).toBe(120_000);
  });
  it('uses the offline speech stack unless a hosted provider is chosen', () => {
    const config = loadConfig({});
    expect(config.stt).toEqual({ provider: 'local' });
    expect(config.tts).toEqual({ provider: 'local' });
    expect(configError({ STT_PROVIDER: 'google' }).message).toBe('STT_PROVIDER must be one of local, deepgram, openai, got "google".');
    expect(configError({ TTS_PROVIDER: 'polly' }).variable).toBe('TTS_PROVIDER');
  });

  it('reads Deepgram with its defaults, and requires its key', () => {
    expect(loadConfig({ STT_PROVIDER: 'deepgram', DEEPGRAM_API_KEY: 'dg-key' }).stt)
      .toEqual({ provider: 'deepgram', url: 'wss://api.deepgram.com', apiKey: 'dg-key', model: 'nova-2' });
    expect(loadConfig({ STT_PROVIDER: 'deepgram', DEEPGRAM_API_KEY: 'k', DEEPGRAM_URL: 'ws://127.0.0.1:9000/', DEEPGRAM_MODEL: 'nova-3' }).stt)
      .toMatchObject({ url: 'ws://127.0.0.1:9000', model: 'nova-3' });
    expect(configError({ STT_PROVIDER: 'deepgram' }).message).toBe('DEEPGRAM_API_KEY is required when STT_PROVIDER is deepgram.');
    expect(configError({ STT_PROVIDER: 'deepgram', DEEPGRAM_API_KEY: 'k', DEEPGRAM_URL: 'https://api.deepgram.com' }).message)
      .toBe('DEEPGRAM_URL must use ws: or wss:, got "https:".');
  });

  it('reads ElevenLabs with its defaults, and requires its key', () => {
    expect(loadConfig({ TTS_PROVIDER: 'elevenlabs', ELEVENLABS_API_KEY: 'xi' }).tts)
      .toEqual({ provider: 'elevenlabs', url: 'https://api.elevenlabs.io', apiKey: 'xi', model: 'eleven_flash_v2_5' });
    expect(configError({ TTS_PROVIDER: 'elevenlabs' }).message).toBe('ELEVENLABS_API_KEY is required when TTS_PROVIDER is elevenlabs.');
  });

  it('points OpenAI speech at the language model server and key unless given a server of its own', () => {
    const llm = { LLM_BASE_URL: 'https://api.openai.com/v1/', LLM_API_KEY: 'sk-llm' };
    expect(loadConfig({ ...llm, STT_PROVIDER: 'openai', TTS_PROVIDER: 'openai' })).toMatchObject({
      stt: { provider: 'openai', baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-llm', model: 'whisper-1' },
      tts: { provider: 'openai', baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-llm', model: 'gpt-4o-mini-tts' },
    });
    // The LLM key is never sent to a different server.
    expect(loadConfig({ ...llm, STT_PROVIDER: 'openai', OPENAI_STT_BASE_URL: 'http://whisper.internal:8000/v1' }).stt)
      .toEqual({ provider: 'openai', baseUrl: 'http://whisper.internal:8000/v1', apiKey: undefined, model: 'whisper-1' });
    expect(loadConfig({ ...llm, TTS_PROVIDER: 'openai', OPENAI_TTS_API_KEY: 'sk-tts', OPENAI_TTS_MODEL: 'tts-1' }).tts)
      .toMatchObject({ apiKey: 'sk-tts', model: 'tts-1' });
    expect(configError({ STT_PROVIDER: 'openai' }).message).toBe('OPENAI_STT_BASE_URL is required when STT_PROVIDER is openai and LLM_BASE_URL is unset.');
    expect(configError({ TTS_PROVIDER: 'openai' }).variable).toBe('OPENAI_TTS_BASE_URL');
  });

  it('sells numbers through the sandbox carrier unless Twilio is configured with its credentials', () => {
    expect(loadConfig({}).telephony).toEqual({ provider: 'sandbox', pace: 'phone' });
    expect(loadConfig({ SANDBOX_CARRIER_PACE: 'instant' }).telephony).toEqual({ provider: 'sandbox', pace: 'instant' });
    expect(() => loadConfig({ SANDBOX_CARRIER_PACE: 'fast' })).toThrow(/SANDBOX_CARRIER_PACE/);
    expect(loadConfig({ SANDBOX_SILENT_CALLEE_SECONDS: '20' }).telephony).toEqual({ provider: 'sandbox', pace: 'phone', silentCalleeSeconds: 20 });
    expect(configError({ SANDBOX_SILENT_CALLEE_SECONDS: '0' }).variable).toBe('SANDBOX_SILENT_CALLEE_SECONDS');
    expect(timingsAt('instant', 20).silentHangUpAfterMs).toBe(20_000);
    expect(timingsAt('instant')).toMatchObject({ answerAfterMs: 0, silentHangUpAfterMs: 1000 });
    expect(timingsAt('phone')).toMatchObject({ answerAfterMs: 1000, silentHangUpAfterMs: 2000 });
    expect(loadConfig({}).campaignInboundReservePercent).toBe(20);
    expect(loadConfig({ CAMPAIGN_INBOUND_RESERVE: '0' }).campaignInboundReservePercent).toBe(0);
    expect(configError({ CAMPAIGN_INBOUND_RESERVE: '95' }).variable).toBe('CAMPAIGN_INBOUND_RESERVE');
    const sid = `AC${'0a'.repeat(16)}`;
    expect(loadConfig({ TELEPHONY_PROVIDER: 'twilio', TWILIO_ACCOUNT_SID: sid, TWILIO_AUTH_TOKEN: 'token', TWILIO_API_BASE: 'http://127.0.0.1:9/' }).telephony)
      .toEqual({ provider: 'twilio', accountSid: sid, authToken: 'token', apiBase: 'http://127.0.0.1:9' });
    expect(configError({ TELEPHONY_PROVIDER: 'twilio' }).variable).toBe('TWILIO_ACCOUNT_SID');
    expect(configError({ TELEPHONY_PROVIDER: 'twilio', TWILIO_ACCOUNT_SID: 'AC123' }).variable).toBe('TWILIO_ACCOUNT_SID');
    expect(configError({ TELEPHONY_PROVIDER: 'twilio', TWILIO_ACCOUNT_SID: sid }).variable).toBe('TWILIO_AUTH_TOKEN');
    expect(configError({ TELEPHONY_PROVIDER: 'vonage' }).variable).toBe('TELEPHONY_PROVIDER');
  });
});
