/**
 * Every speech setting of an assistant as the voice engine takes it: plain data, loaded by the caller
 * (src/resources/assistants/voice-profile.ts) beside the AgentProfile. Durations are milliseconds here, so a
 * test runs the same rules with short timers; the contract's seconds are converted by the loader.
 */
import { languagePack } from '../lib/languages/index.ts';

export const AMBIENT_SOUNDS = ['off', 'office', 'city', 'forest', 'crowded_room', 'cafe', 'nature'] as const;
export type AmbientSound = (typeof AMBIENT_SOUNDS)[number];

export interface VoiceSettings {
  /** `engine_type`: the speech pipeline, or a speech-to-speech model (realtime/). */
  mode: 'pipeline' | 'multimodal';
  /** The speech-to-speech model's provider name (`gpt-realtime`); undefined: the configured default. */
  realtimeModel: string | undefined;
  /** `who_speaks_first`: the assistant opens with its initial message, or waits for the customer. */
  waitForCustomer: boolean;
  /** The synthesizer provider's code (`espeak`, `elevenlabs`, …) and its own voice id; undefined: the provider's default. */
  synthesizer: string | undefined;
  voiceId: string | undefined;
  /** The transcriber provider's code; undefined: the configured default. */
  transcriber: string | undefined;
  /** BCP 47 codes from the languages catalog. */
  sttLanguage: string;
  ttsLanguage: string;
  /** `speech_speed`, 0.7..1.2. */
  speechSpeed: number;
  /** `endpoint_type`: `vad` waits for silence, `ai` also reads the words (turns/endpointing.ts). */
  endpointType: 'vad' | 'ai';
  /** `endpoint_sensitivity`, 0..5: higher ends the caller's turn after a shorter silence. */
  endpointSensitivity: number;
  allowInterruptions: boolean;
  /** `interrupt_sensitivity`, 0..5: higher lets a shorter stretch of the caller's voice interrupt. */
  interruptSensitivity: number;
  /** `min_interrupt_words`: when set, speech interrupts only once its transcript has that many words. */
  minInterruptWords: number | null;
  /** Silence after which the assistant re-engages, once per interval. */
  reengagementMs: number;
  /** What to ask of the model when it re-engages; a default instruction when null. */
  reengagementPrompt: string | null;
  /** Silence from the caller after which the call ends politely. */
  maxSilenceMs: number;
  /** `filler_audios`: a short acknowledgement when a tool runs long; the phrases to pick from. */
  fillers: boolean;
  fillerPhrases: string[];
  /** `record_call`: both sides mixed into one WAV. */
  record: boolean;
  noiseCancellation: boolean;
  ambientSound: AmbientSound;
  /** 0..1. */
  ambientVolume: number;
  /** `end_call_on_voicemail`: hang up when a machine answers an outbound call, instead of leaving a message. */
  endCallOnVoicemail: boolean;
  /** `voice_mail_message`: what is left on a voicemail box (with variables); the opening line when null. */
  voicemailMessage: string | null;
}

/** The acknowledgements spoken while a slow tool runs when an English assistant configures none (lib/languages has each language's). */
export const DEFAULT_FILLER_PHRASES: string[] = [...languagePack('en').fillerPhrases];

/** The contract's documented defaults (anchor section 15), for callers building settings by hand. */
export const DEFAULT_VOICE_SETTINGS: VoiceSettings = {
  mode: 'pipeline',
  realtimeModel: undefined,
  waitForCustomer: false,
  synthesizer: undefined,
  voiceId: undefined,
  transcriber: undefined,
  sttLanguage: 'en-US',
  ttsLanguage: 'en-US',
  speechSpeed: 1,
  endpointType: 'vad',
  endpointSensitivity: 0.5,
  allowInterruptions: true,
  interruptSensitivity: 0.5,
  minInterruptWords: null,
  reengagementMs: 30_000,
  reengagementPrompt: null,
  maxSilenceMs: 40_000,
  fillers: false,
  fillerPhrases: DEFAULT_FILLER_PHRASES,
  record: false,
  noiseCancellation: true,
  ambientSound: 'off',
  ambientVolume: 0.5,
  endCallOnVoicemail: true,
  voicemailMessage: null,
};
