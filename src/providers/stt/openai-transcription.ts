import { Agent, FormData } from 'undici';
import { wavFile } from '../../lib/audio/wav.ts';
import { postSpeech } from '../speech-http.ts';
import { SpeechProviderError, type SegmentSpeechToText, type Transcript, type TranscriptionOptions } from './types.ts';

export interface OpenAiTranscriptionOptions {
  /** An OpenAI-compatible base URL ending in `/v1`. */
  baseUrl: string;
  /** Sent as a bearer token; local servers take none. */
  apiKey: string | undefined;
  /** e.g. `whisper-1`, `gpt-4o-mini-transcribe`. */
  model: string;
  timeoutMs?: number;
}

/**
 * OpenAI's `/v1/audio/transcriptions` (or a compatible server such as a faster-whisper server): each utterance
 * the voice activity detector cut is sent as a WAV file and comes back as its words.
 */
export class OpenAiSpeechToText implements SegmentSpeechToText {
  readonly kind = 'segment';
  readonly name = 'openai-stt';
  private readonly endpoint: string;
  private readonly headers: Record<string, string> = {};
  private readonly model: string;
  private readonly timeoutMs: number;
  // Idle kept-alive connections do not hold the process open (undici unrefs them).
  private readonly dispatcher = new Agent({ keepAliveTimeout: 30_000 });

  constructor(options: OpenAiTranscriptionOptions) {
    this.endpoint = `${options.baseUrl.replace(/\/+$/, '')}/audio/transcriptions`;
    if (options.apiKey) this.headers.authorization = `Bearer ${options.apiKey}`;
    this.model = options.model;
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  async transcribe(audio: Int16Array, options: TranscriptionOptions): Promise<Transcript> {
    const form = new FormData();
    form.append('file', new Blob([wavFile(audio, options.sampleRate)], { type: 'audio/wav' }), 'utterance.wav');
    form.append('model', this.model);
    // The endpoint takes ISO 639-1 (`en`), the catalog BCP 47 (`en-US`).
    form.append('language', options.language.split('-')[0]!.toLowerCase());
    form.append('response_format', 'json');
    const response = await postSpeech(this.name, {
      url: this.endpoint,
      headers: this.headers,
      body: form,
      signal: options.signal,
      timeoutMs: this.timeoutMs,
      dispatcher: this.dispatcher,
    });
    let body: { text?: unknown };
    try {
      body = await response.body.json() as { text?: unknown };
    } catch (error) {
      if (options.signal.aborted) throw error;
      throw new SpeechProviderError(`${this.name} sent an unreadable answer: ${(error as Error).message}`, { retryable: true, cause: error });
    }
    if (typeof body.text !== 'string') throw new SpeechProviderError(`${this.name} answered without a text`, { retryable: false });
    return { text: body.text.trim() };
  }
}
