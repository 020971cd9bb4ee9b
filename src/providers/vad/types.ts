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

export interface VoiceActivityDetector {
  /** Hears a frame; returns what changed (usually nothing). Cheap enough to run inline: well under 1 ms per 20 ms. */
  push(frame: Int16Array): VadEvent[];
  /** Releases native resources; the detector cannot be used afterwards. */
  close(): void;
}

export interface VadFactory {
  name: string;
  create(options: VadOptions): VoiceActivityDetector;
}
