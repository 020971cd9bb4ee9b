import type { FunctionDefinition } from '../llm/types.ts';

/**
 * A speech-to-speech model (`engine_type: multimodal`) as the voice engine asks for it, independent of any
 * vendor. One connection is one call: caller audio goes in as it arrives, the model's own voice activity
 * detection decides when the caller has finished, and the model answers in audio with a transcript beside it.
 * Tools run on our side: the model asks with a `function_call` event, the engine answers with
 * `sendFunctionResult` and then `createResponse` so the model speaks about the result.
 *
 * Barge-in: `speech_started` arrives while the model speaks; the engine stops playback, and
 * `truncate(itemId, heardMs)` makes the model's history hold only what the caller heard.
 */

export interface RealtimeTurnDetection {
  type: 'server_vad';
  /** 0..1: how loud audio must be to count as speech; higher needs louder speech. */
  threshold: number;
  /** Silence that ends the caller's turn. */
  silenceMs: number;
  /** Audio kept from before the detected start of speech. */
  prefixPaddingMs?: number;
  /**
   * Whether the model stops its answer by itself when the caller starts speaking. Off when interruptions are
   * not allowed, or when the engine decides (minimum words) and calls `cancelResponse` itself.
   */
  interruptResponse: boolean;
}

export interface RealtimeSessionOptions {
  /** The provider's model name, e.g. `gpt-realtime`. */
  model: string;
  /** The system prompt of the whole call. */
  instructions: string;
  /** The provider's voice id, e.g. `marin`. */
  voice: string;
  tools: FunctionDefinition[];
  /** A language code for the caller's transcript (`en`, `de`); unset lets the transcriber guess. */
  inputTranscriptionLanguage?: string;
  turnDetection: RealtimeTurnDetection;
  /** Speaking rate as a multiple of normal (0.25..1.5); unset is normal. */
  speed?: number;
  /** Filtering of the caller's audio before detection and the model, where the provider has it. */
  noiseReduction?: 'near_field' | 'far_field';
  /** Ends the connection: connecting stops, an open socket closes, `events` ends. */
  signal: AbortSignal;
}

export interface RealtimeUsage {
  inputTokens: number;
  outputTokens: number;
  /** The audio share of each, which providers price apart from text. */
  inputAudioTokens: number;
  outputAudioTokens: number;
}

/** What the model tells, in the order it happens. Ids are the provider's conversation item ids. */
export type RealtimeEvent =
  /** The model's voice activity detection heard the caller start; `audioStartMs` counts from the first appended audio. */
  | { type: 'speech_started'; itemId: string; audioStartMs: number }
  /** The caller's turn ended; unless interrupted, the model answers next. */
  | { type: 'speech_stopped'; itemId: string; audioEndMs: number }
  /** What the caller said in the turn `itemId`; arrives some time after `speech_stopped`, possibly after the answer began. */
  | { type: 'user_transcript'; itemId: string; text: string }
  /** The model began an answer. */
  | { type: 'response_started'; responseId: string }
  /** A piece of the answer's audio: PCM16 mono at the connection's `sampleRate`. */
  | { type: 'audio'; responseId: string; itemId: string; pcm: Int16Array }
  /** Words of the answer as the model speaks them (they run ahead of the audio). */
  | { type: 'transcript_delta'; responseId: string; itemId: string; text: string }
  /** The whole transcript of the spoken item `itemId`, as generated (before any truncation). */
  | { type: 'transcript_done'; responseId: string; itemId: string; text: string }
  /** The model wants a tool run; `arguments` is JSON text, possibly malformed. */
  | { type: 'function_call'; responseId: string; itemId: string; callId: string; name: string; arguments: string }
  /** The answer ended; `cancelled` when interrupted, with the provider's reason where it gives one. */
  | { type: 'response_done'; responseId: string; status: 'completed' | 'cancelled' | 'failed' | 'incomplete'; reason?: string; usage?: RealtimeUsage }
  /** A problem the connection survives (an event the provider refused, caller audio dropped). Safe to log. */
  | { type: 'error'; message: string; code?: string };

export interface RealtimeConnection {
  /** Samples per second of audio in both directions (24000 for OpenAI's PCM16). */
  readonly sampleRate: number;
  /**
   * One frame of caller audio at `sampleRate`; never blocks. When the socket falls behind, frames are dropped
   * (reported once per run of drops as an `error` event) rather than buffered without bound.
   */
  appendAudio(pcm: Int16Array): void;
  /** Asks the model to answer now, e.g. for the greeting; `instructions` replace the session's for this answer only. */
  createResponse(instructions?: string): void;
  /** Stops the answer in progress; nothing happens when none is. */
  cancelResponse(): void;
  /** Cuts the assistant item `itemId` after `audioEndMs` of its audio, with its transcript, from the model's history. */
  truncate(itemId: string, audioEndMs: number): void;
  /** The result of the tool call `callId` (JSON or plain text); `createResponse` then lets the model go on. */
  sendFunctionResult(callId: string, output: string): void;
  /** Closes the socket; `events` ends. */
  close(): void;
  /**
   * Events until the connection closes: ends after `close()` or the abort of `signal`, throws
   * RealtimeProviderError when the provider ends it. One consumer; a slow one slows the socket, never memory.
   */
  readonly events: AsyncIterable<RealtimeEvent>;
}

export interface RealtimeModel {
  /** Short name for logs and metrics, e.g. `openai`. */
  readonly name: string;
  /** Opens a session configured with `options`; resolves once the provider has applied the configuration. */
  connect(options: RealtimeSessionOptions): Promise<RealtimeConnection>;
}

/** A realtime provider failed; `retryable` says whether connecting again may succeed. The text is safe to log. */
export class RealtimeProviderError extends Error {
  override name = 'RealtimeProviderError';
  readonly retryable: boolean;
  /** The provider's own error code where it gave one, e.g. `invalid_api_key`. */
  readonly code: string | undefined;
  constructor(message: string, options: { retryable: boolean; code?: string; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.retryable = options.retryable;
    this.code = options.code;
  }
}
