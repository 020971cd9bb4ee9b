import { ConfigError } from './error.ts';
import type { Reader } from './reader.ts';
import type { RealtimeConfig, SpeechToTextConfig, TextToSpeechConfig } from './types.ts';

const openAiRealtimeUrl = 'wss://api.openai.com/v1/realtime';

/** On when a key or an endpoint is given (REALTIME_PROVIDER=none turns it off); OpenAI's endpoint needs a key. */
export function readRealtime(read: Reader): RealtimeConfig {
  const apiKey = read.string('REALTIME_API_KEY');
  const url = read.url('REALTIME_URL', ['ws:', 'wss:'])?.replace(/\/+$/, '');
  const provider = read.oneOf('REALTIME_PROVIDER', ['openai', 'none'] as const, apiKey || url ? 'openai' : 'none');
  if (provider === 'none') return undefined;
  if (!apiKey && (url ?? openAiRealtimeUrl) === openAiRealtimeUrl) {
    throw new ConfigError('REALTIME_API_KEY', `is required for OpenAI's Realtime API (a compatible server of REALTIME_URL may take none).`);
  }
  return { provider, url: url ?? openAiRealtimeUrl, apiKey, defaultModel: read.string('REALTIME_MODEL') ?? 'gpt-realtime' };
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

export function readSpeechToText(read: Reader): SpeechToTextConfig {
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

export function readTextToSpeech(read: Reader): TextToSpeechConfig {
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

/**
 * Concurrent calls a replica holds by default, per CPU core: what its speech stack sustains (docs/decisions.md,
 * measured on two cores): 4 a core with the Piper voice, 8 with espeak-ng and local Whisper, 100 with hosted speech.
 */
export function defaultMaxCalls(stt: SpeechToTextConfig, tts: TextToSpeechConfig, cores: number): number {
  if (tts.provider === 'local') return 4 * cores;
  if (stt.provider === 'local' || tts.provider === 'espeak') return 8 * cores;
  return 100 * cores;
}
