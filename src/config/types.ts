/** A speech-to-speech model for assistants with `engine_type: multimodal`; `undefined` means none is configured. */
export type RealtimeConfig = {
  provider: 'openai';
  /** The OpenAI Realtime-compatible WebSocket endpoint (`wss://…/v1/realtime`), without query. */
  url: string;
  apiKey: string | undefined;
  /** The model name sent when an assistant's model is not a realtime model of the catalog. */
  defaultModel: string;
} | undefined;

/** Speech-to-text: `local` is Whisper tiny.en in a pool of Python workers; the others are hosted services (`.env.example`). */
export type SpeechToTextConfig =
  | { provider: 'local' }
  | { provider: 'deepgram'; url: string; apiKey: string; model: string }
  | { provider: 'openai'; baseUrl: string; apiKey: string | undefined; model: string };

/**
 * Text-to-speech by default: `local` is Piper, or espeak-ng when the Piper voice is not installed; `espeak`
 * forces espeak-ng; the others are hosted services (`.env.example`).
 */
export type TextToSpeechConfig =
  | { provider: 'local' | 'espeak' }
  | { provider: 'elevenlabs'; url: string; apiKey: string; model: string }
  | { provider: 'openai'; baseUrl: string; apiKey: string | undefined; model: string };

/** Speech for calls. `local` is the offline stack of scripts/install-speech.sh, loaded on first use. */
export interface SpeechConfig {
  /** Where scripts/install-speech.sh put the models and the Whisper worker's Python venv. */
  dir: string;
  /** Install the multilingual Whisper base too (German, Spanish and French calls offline); off: English only, 145 MB less. */
  multilingual: boolean;
  /** Whisper worker processes (one thread each) and utterances that may wait for one before new ones are refused. */
  whisperWorkers: number;
  whisperQueueLimit: number;
  /** Piper voices loaded at once (one thread each); more synthesize in parallel, at ~250 MB each. */
  piperInstances: number;
  /** Worker threads running every call's voice activity detector, off the media role's event loop. */
  vadThreads: number;
}
