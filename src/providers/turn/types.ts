/**
 * A turn model: how likely the caller has finished speaking, judged from the voice itself (its pitch, pace and
 * the way a sentence falls at its end), not the words. The voice engine asks when the caller pauses and
 * combines the answer with its own reading of the words (voice/turns/turn-policy.ts).
 */
export interface TurnDetector {
  /** Short name for logs and metrics, e.g. `smart-turn`. */
  name: string;
  /**
   * The probability (0..1) that the turn is complete, for `audio`: PCM16 mono at 16 kHz of the caller's turn so
   * far, ending where they paused (only its last 8 s are heard). Rejects with the signal's reason when it
   * aborts first, or with a SpeechProviderError when the model cannot run.
   */
  score(audio: Int16Array, signal: AbortSignal): Promise<number>;
  /** Loads the model now, so that the first pause of the first call does not wait for it. */
  warmUp?(): Promise<void>;
  close?(): Promise<void>;
}
