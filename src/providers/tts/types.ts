/**
 * Text-to-speech as the voice engine asks for it: one request per sentence, audio streamed back as it is
 * made, so the caller hears the first words while the rest is still being synthesized.
 */

export interface SynthesisRequest {
  text: string;
  /** The provider's own voice id from the voices catalog (`provider_voice_id`). */
  voice: string;
  /** A BCP 47 code from the languages catalog (`tts_code`). */
  language: string;
  /** 1 is the voice's natural pace; the contract allows 0.5..2 (`speech_speed`). */
  speed: number;
  /** Stops synthesis and any request behind it at once; the iterator then ends without throwing. */
  signal: AbortSignal;
}

export interface SynthesizedSpeech {
  /** Samples per second of every chunk; the engine resamples once, at the edge. */
  sampleRate: number;
  /** PCM16 mono chunks in order, of any length. Throws SpeechProviderError when the provider fails. */
  chunks: AsyncIterable<Int16Array>;
}

export interface TextToSpeech {
  /** Short name for logs and metrics, e.g. `piper`, `espeak`, `elevenlabs`. */
  name: string;
  /** The synthesizer provider `code` of the catalog this adapter serves. */
  code: string;
  /** The voice spoken when a call names none this adapter has (an assistant without a voice, or another provider's). */
  defaultVoice: string;
  synthesize(request: SynthesisRequest): SynthesizedSpeech;
  /**
   * Loads now what the first request would wait for (a local model's voices), so a media replica's first calls
   * do not; absent where there is nothing to load (hosted synthesizers, espeak-ng's process per request).
   */
  warmUp?(): Promise<void>;
}
