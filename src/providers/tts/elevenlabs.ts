import { Agent } from 'undici';
import { postSpeech, streamPcm16 } from '../speech-http.ts';
import type { SynthesisRequest, SynthesizedSpeech, TextToSpeech } from './types.ts';

/** The engine's internal rate: no resampling for a web call, one step down for the phone. */
const SAMPLE_RATE = 16_000;
/** ElevenLabs accepts a speaking rate of 0.7..1.2; the contract's 0.5..2 is held inside it. */
const MIN_SPEED = 0.7;
const MAX_SPEED = 1.2;

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
    let response;
    try {
      response = await postSpeech(this.name, {
        url,
        headers: { 'content-type': 'application/json', 'xi-api-key': this.options.apiKey },
        body: JSON.stringify({
          text: request.text,
          model_id: this.options.model,
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
