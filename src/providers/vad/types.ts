/**
 * Voice activity detection for one call: it hears every inbound frame and tells when the caller starts and
 * stops speaking. Barge-in, endpointing and segment transcription all hang on it.
 */

export interface VadOptions {
  /** Samples per second of the frames pushed; the engine's internal rate. */
  sampleRate: number;
  /** Speech probability above which a window counts as speech, 0..1. */
  threshold: number;
  /** Speech shorter than this is ignored (a click, a cough). */
  minSpeechMs: number;
  /** Silence that must follow speech before the detector calls it ended. */
  minSilenceMs: number;
}

export type VadEvent =
  /** Speech began `atMs` into the stream (by samples pushed, not wall time). */
  | { type: 'speech_start'; atMs: number }
  /** Speech ended; `audio` is the whole utterance (with a little lead-in), for a segment recognizer. */
  | { type: 'speech_end'; atMs: number; audio: Int16Array };

/**
 * Hears one call. What it detects goes to the listener given when it was made, during `push` or a little
 * later (a detector on a worker thread answers after its round trip); event times are stream times, so
 * the delay does not move them.
 */
export interface VoiceActivityDetector {
  push(frame: Int16Array): void;
  /**
   * Milliseconds of the audio pushed that the detector has not judged yet (a detector on a busy thread
   * answers late); absent or 0: it has judged all of it. A pause is only as long as the audio judged silent.
   */
  pendingMs?(): number;
  /** Releases what the detector holds; nothing reaches the listener afterwards. */
  close(): void;
}

export interface VadFactory {
  name: string;
  create(options: VadOptions, listener: (event: VadEvent) => void): VoiceActivityDetector;
  /** Ends the threads the factory started, where it started any. */
  close?(): Promise<void>;
}
