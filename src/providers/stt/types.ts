/**
 * Speech-to-text as the voice engine asks for it, independent of any vendor. Two kinds exist because the
 * recognizers differ in what they take: a streaming recognizer (Deepgram-compatible) hears every frame and
 * decides its own finals; a segment recognizer (Whisper, OpenAI-compatible transcription) is handed one
 * utterance the voice activity detector has cut. The pipeline drives either; audio is always PCM16 mono at
 * the engine's internal rate (16 kHz).
 */

export interface TranscriptionOptions {
  /** A BCP 47 code from the languages catalog (`stt_code`), e.g. `en-US`. */
  language: string;
  /** Samples per second of the audio handed over; the engine's internal rate. */
  sampleRate: number;
  /** Ends the request or the stream; a recognizer stops its work and its network traffic at once. */
  signal: AbortSignal;
}

/**
 * How soon a segment's words are needed: `final` when a turn waits for them (the caller has stopped), `provisional`
 * for words while the caller still speaks, which a recognizer shared by many calls serves after every final.
 */
export type TranscriptionPriority = 'final' | 'provisional';

export interface SegmentOptions extends TranscriptionOptions {
  /** `final` when not given. */
  priority?: TranscriptionPriority;
}

export interface Transcript {
  text: string;
  /** 0..1 where the recognizer reports it. */
  confidence?: number;
}

/** What a streaming recognizer tells, in the order it happens. */
export type TranscriptEvent =
  /** A guess at the words so far of the current utterance; replaced by the next partial or the final. */
  | { type: 'partial'; text: string }
  /**
   * Settled words: they will not change. An utterance may end in several finals. `flushed`: the answer to a
   * `finalize()` (each gets one, in order), empty when nothing was pending.
   */
  | { type: 'final'; text: string; confidence?: number; flushed?: boolean }
  /** The recognizer's own endpointing heard the utterance end (Deepgram `UtteranceEnd` / `speech_final`). */
  | { type: 'utterance_end' };

export interface TranscriptionStream {
  /** One frame of caller audio; never blocks. A recognizer that falls behind drops with a logged warning rather than buffering without bound. */
  write(frame: Int16Array): void;
  /** Events until the stream closes; ends after `close()` once the last final is out, or throws SpeechProviderError. */
  events: AsyncIterable<TranscriptEvent>;
  /**
   * Asks for the finals of everything heard so far at once, instead of after the recognizer's own endpointing
   * (Deepgram's `Finalize`): the caller has paused. Answered by a final, empty when nothing was pending.
   */
  finalize?(): void;
  /** Asks for the last finals and ends the stream gracefully. */
  close(): void;
}

export interface StreamingSpeechToText {
  kind: 'streaming';
  /** Short name for logs and metrics, e.g. `deepgram`. */
  name: string;
  open(options: TranscriptionOptions): TranscriptionStream;
}

export interface SegmentSpeechToText {
  kind: 'segment';
  name: string;
  /** ISO 639-1 codes it hears; absent: every language its provider does (a hosted service). */
  hears?: readonly string[];
  /**
   * Whether hearing the same growing segment again every few hundred milliseconds is cheap (a local model), so
   * the engine re-decodes it while the caller speaks; a hosted recognizer, paid per request, is asked only once
   * the caller pauses.
   */
  incremental?: boolean;
  /** The words of one utterance (PCM16 at `options.sampleRate`), decoded on its own: never conditioned on earlier text. */
  transcribe(audio: Int16Array, options: SegmentOptions): Promise<Transcript>;
}

export type SpeechToText = StreamingSpeechToText | SegmentSpeechToText;

/** A speech provider failed; `retryable` says whether the same request may succeed again. The text is safe to log. */
export class SpeechProviderError extends Error {
  override name = 'SpeechProviderError';
  readonly retryable: boolean;
  constructor(message: string, options: { retryable: boolean; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.retryable = options.retryable;
  }
}
