import { Agent } from 'undici';
import { iso2Of } from '../../lib/languages/index.ts';
import { postSpeech, streamPcm16 } from '../speech-http.ts';
import type { SynthesisRequest, SynthesizedSpeech, TextToSpeech } from './types.ts';

/** The engine's internal rate: no resampling for a web call, one step down for the phone. */
const SAMPLE_RATE = 16_000;
/** ElevenLabs accepts a speaking rate of 0.7..1.2; the contract's 0.5..2 is held inside it. */
const MIN_SPEED = 0.7;
const MAX_SPEED = 1.2;

/**
 * ElevenLabs' English-only models and the multilingual model of the same kind that replaces each for another
 * language: a German voice on `eleven_flash_v2` would read German text with English phonemes.
 */
const MULTILINGUAL_MODEL: Record<string, string> = {
  eleven_monolingual_v1: 'eleven_multilingual_v2',
  eleven_flash_v2: 'eleven_flash_v2_5',
  eleven_turbo_v2: 'eleven_turbo_v2_5',
};
/** The models that take a `language_code` to enforce the language (ElevenLabs: Flash and Turbo v2.5). */
const LANGUAGE_ENFORCING = new Set(['eleven_flash_v2_5', 'eleven_turbo_v2_5']);

export interface ElevenLabsOptions {
  /** `https://api.elevenlabs.io`, or a compatible server. */
  url: string;
  apiKey: string;
  /** e.g. `eleven_flash_v2_5`, the lowest-latency model. */
  model: string;
  timeoutMs?: number;
}

/**
 * ElevenLabs' streaming text-to-speech: one POST per sentence to `/v1/text-to-speech/{voice}/stream` asking for
 * raw PCM16 at 16 kHz, whose chunked body is played as it arrives. The request starts when iteration starts.
 * A sentence in another language than English goes to a multilingual model, told the language where it takes it.
 */
export class ElevenLabsTextToSpeech implements TextToSpeech {
  readonly name = 'elevenlabs';
  readonly code = 'elevenlabs';
  /** Rachel, as the voices catalog seeds her. */
  readonly defaultVoice = '21m00Tcm4TlvDq8EAJCM';
  private readonly options: Required<ElevenLabsOptions>;
  // Idle kept-alive connections do not hold the process open (undici unrefs them).
  private readonly dispatcher = new Agent({ keepAliveTimeout: 30_000 });

  constructor(options: ElevenLabsOptions) {
    this.options = { timeoutMs: 10_000, ...options, url: options.url.replace(/\/+$/, '') };
  }

  synthesize(request: SynthesisRequest): SynthesizedSpeech {
    return { sampleRate: SAMPLE_RATE, chunks: this.stream(request) };
  }

  private async *stream(request: SynthesisRequest): AsyncGenerator<Int16Array> {
    if (request.signal.aborted) return;
    const url = `${this.options.url}/v1/text-to-speech/${encodeURIComponent(request.voice)}/stream?output_format=pcm_${SAMPLE_RATE}`;
    const language = iso2Of(request.language);
    const english = language === 'en' || language === '';
    const model = english ? this.options.model : MULTILINGUAL_MODEL[this.options.model] ?? this.options.model;
    let response;
    try {
      response = await postSpeech(this.name, {
        url,
        headers: { 'content-type': 'application/json', 'xi-api-key': this.options.apiKey },
        body: JSON.stringify({
          text: request.text,
          model_id: model,
          ...(!english && LANGUAGE_ENFORCING.has(model) ? { language_code: language } : {}),
          voice_settings: {
            stability: 0.5,
            similarity_boost: 0.75,
            speed: Math.min(MAX_SPEED, Math.max(MIN_SPEED, request.speed)),
          },
        }),
        signal: request.signal,
        timeoutMs: this.options.timeoutMs,
        dispatcher: this.dispatcher,
      });
    } catch (error) {
      if (request.signal.aborted) return;
      throw error;
    }
    yield* streamPcm16(this.name, response, request.signal);
  }
}
