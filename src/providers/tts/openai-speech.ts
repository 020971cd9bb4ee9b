import { Agent } from 'undici';
import { postSpeech, streamPcm16 } from '../speech-http.ts';
import type { SynthesisRequest, SynthesizedSpeech, TextToSpeech } from './types.ts';

/** `response_format: pcm` is raw 24 kHz PCM16 mono, the only rate the endpoint offers raw. */
const SAMPLE_RATE = 24_000;

export interface OpenAiSpeechOptions {
  /** An OpenAI-compatible base URL ending in `/v1`. */
  baseUrl: string;
  /** Sent as a bearer token; local servers take none. */
  apiKey: string | undefined;
  /** e.g. `gpt-4o-mini-tts` or `tts-1`. */
  model: string;
  timeoutMs?: number;
}

/**
 * OpenAI's `/v1/audio/speech` (or a compatible server): one POST per sentence, its chunked PCM body played as
 * it arrives. The request starts when iteration starts. The language follows from the text.
 */
export class OpenAiTextToSpeech implements TextToSpeech {
  readonly name = 'openai-tts';
  readonly code = 'openai';
  readonly defaultVoice = 'alloy';
  private readonly endpoint: string;
  private readonly headers: Record<string, string>;
  private readonly model: string;
  private readonly timeoutMs: number;
  // Idle kept-alive connections do not hold the process open (undici unrefs them).
  private readonly dispatcher = new Agent({ keepAliveTimeout: 30_000 });

  constructor(options: OpenAiSpeechOptions) {
    this.endpoint = `${options.baseUrl.replace(/\/+$/, '')}/audio/speech`;
    this.headers = { 'content-type': 'application/json' };
    if (options.apiKey) this.headers.authorization = `Bearer ${options.apiKey}`;
    this.model = options.model;
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  synthesize(request: SynthesisRequest): SynthesizedSpeech {
    return { sampleRate: SAMPLE_RATE, chunks: this.stream(request) };
  }

  private async *stream(request: SynthesisRequest): AsyncGenerator<Int16Array> {
    if (request.signal.aborted) return;
    let response;
    try {
      response = await postSpeech(this.name, {
        url: this.endpoint,
        headers: this.headers,
        // The contract's 0.5..2 lies inside the endpoint's 0.25..4.
        body: JSON.stringify({ model: this.model, input: request.text, voice: request.voice, response_format: 'pcm', speed: request.speed }),
        signal: request.signal,
        timeoutMs: this.timeoutMs,
        dispatcher: this.dispatcher,
      });
    } catch (error) {
      if (request.signal.aborted) return;
      throw error;
    }
    yield* streamPcm16(this.name, response, request.signal);
  }
}
