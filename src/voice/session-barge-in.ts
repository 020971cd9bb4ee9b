/**
 * The caller's speech over the assistant (barge-in). When the caller starts speaking while an utterance is
 * being said, the overlap is followed; once the turn policy (turns/barge-in.ts) says it interrupts, the audio
 * is held at once (the far side drops what it has) and the utterance stopped for good only once the caller's
 * words come: a cough or a knock (a turn without words) lets it go on from where the caller stopped hearing it.
 * Speech over the assistant that does not interrupt it (a backchannel, or interruptions are off) is overheard:
 * not answered.
 */
import type { SpeechProgress } from './listening/listener.ts';
import type { SessionParts } from './session-parts.ts';
import type { SpeechHandle } from './speech.ts';
import { shouldInterrupt } from './turns/barge-in.ts';

/** What barge-in reads of the assistant's utterance being said. */
export interface FloorUtterance {
  handle: SpeechHandle;
  interruptible: boolean;
}

export class BargeIn {
  private readonly parts: SessionParts;
  /** The assistant's utterance being said, if any. */
  private readonly current: () => FloorUtterance | undefined;
  /** The caller's speech while the assistant had the floor, and whether it interrupted. */
  private overlap: { interrupted: boolean } | undefined;
  /** The utterance whose audio is held because the caller spoke over it, and since when. */
  private held: { utterance: FloorUtterance; at: number } | undefined;

  constructor(parts: SessionParts, current: () => FloorUtterance | undefined) {
    this.parts = parts;
    this.current = current;
  }

  /** The caller is speaking over the assistant without having interrupted it: their words are not answered. */
  get overheard(): boolean {
    return this.overlap !== undefined && !this.overlap.interrupted;
  }

  /** Audio is held for the caller, waiting for their words. */
  get holding(): boolean {
    return this.held !== undefined;
  }

  /** Stops the current utterance at once (at the time its audio was held, when it was). */
  interrupt(): void {
    const utterance = this.current();
    if (!utterance || utterance.handle.interrupted) return;
    const at = this.held?.utterance === utterance ? this.held.at : this.parts.clock.now();
    this.held = undefined;
    utterance.handle.interrupt(at);
    this.parts.output.clear();
  }

  speechStarted(): void {
    const current = this.current();
    if (current && !current.handle.interrupted) this.overlap = { interrupted: false };
  }

  progress(speech: SpeechProgress): void {
    // Audio held for the caller stops for good once they say words: it was not a cough.
    if (this.held && speech.words > 0) this.interrupt();
    const { overlap } = this;
    const current = this.current();
    if (!overlap || overlap.interrupted || !current?.interruptible || current.handle.interrupted) return;
    if (shouldInterrupt(this.parts.settings, speech)) {
      overlap.interrupted = true;
      this.held = { utterance: current, at: this.parts.clock.now() };
      this.parts.output.hold();
      if (speech.words > 0) this.interrupt();
    }
  }

  /** A turn without words (a cough, a knock): audio held for it goes on where the caller left it. */
  falseStart(): void {
    this.overlap = undefined;
    const held = this.held;
    this.held = undefined;
    if (held && held.utterance === this.current() && !held.utterance.handle.interrupted) this.parts.output.resume();
  }

  /** The caller's turn with words is committed: whether it was overheard; the overlap is over. */
  turnEnded(): boolean {
    const overheard = this.overheard;
    this.overlap = undefined;
    return overheard;
  }
}
