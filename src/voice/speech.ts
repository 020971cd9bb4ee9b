/**
 * SpeechHandle: one utterance of the assistant. Its one AbortController's signal goes to everything the
 * utterance runs on (the agent turn's model request and tools, each synthesis request, the queued audio), so
 * `interrupt()` stops all of it at once. It keeps per sentence what was sent and whether its mark came back,
 * so the history keeps only what the caller heard.
 *
 * A handle may be made held: a draft of a reply, prepared while the caller pauses. Its model request and
 * synthesis run, but nothing goes to the caller and no tool runs until `release()` (the caller's turn is
 * committed); a draft that is not wanted is abandoned, and has left no trace.
 */
import { FRAME_MS } from './audio/frames.ts';
import type { VoiceClock } from './clock.ts';

/** How long past its expected end a sentence's mark may take before the engine stops waiting for it. */
export const MARK_GRACE_MS = 1500;

/** One sentence of the utterance on its way to the caller. */
export interface SentenceTrack {
  /** Empty for sound without words (keypad tones). */
  text: string;
  /** The mark sent after the sentence's last frame. */
  mark: string;
  /** Audio queued for the pacer so far (the sentence's length once complete). */
  queuedMs: number;
  /** Audio sent so far, and when its first frame was due to play. */
  sentMs: number;
  firstDueAt: number | undefined;
  /** Every frame of the sentence is queued. */
  complete: boolean;
  /** The far side played it to its end (the mark came back before any interruption). */
  heard: boolean;
}

/** Why an utterance stopped early; the signal's reason. */
export class SpeechInterruptedError extends Error {
  override name = 'SpeechInterruptedError';
}

export class SpeechHandle {
  private name: string;
  private readonly controller = new AbortController();
  readonly sentences: SentenceTrack[] = [];
  /** The clock time of the interruption. */
  private interruptedAt: number | undefined;
  private settled = false;
  private onSettled: (() => void) | undefined;
  private readonly done: Promise<void>;
  private sealed = false;
  private release_: (() => void) | undefined;
  /** Resolves once the utterance may be heard and act: at once, or for a held draft at `release()`. */
  readonly released: Promise<void>;

  constructor(id: string, options: { held?: boolean } = {}) {
    this.name = id;
    this.done = new Promise((resolve) => {
      this.onSettled = resolve;
    });
    this.released = options.held ? new Promise((resolve) => { this.release_ = resolve; }) : Promise.resolve();
  }

  get id(): string {
    return this.name;
  }

  /** Whether the utterance is held (a draft not yet committed). */
  get held(): boolean {
    return this.release_ !== undefined;
  }

  /**
   * Lets a held draft be heard, under the name of the utterance it becomes: its marks, none sent while it was
   * held, are named after it.
   */
  release(id: string): void {
    this.name = id;
    this.sentences.forEach((track, index) => { track.mark = `${id}.${index + 1}`; });
    const release = this.release_;
    this.release_ = undefined;
    release?.();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get interrupted(): boolean {
    return this.interruptedAt !== undefined;
  }

  /** A sentence about to be synthesized; its mark is named after the utterance and its place in it. */
  addSentence(text: string): SentenceTrack {
    const track: SentenceTrack = { text, mark: `${this.id}.${this.sentences.length + 1}`, queuedMs: 0, sentMs: 0, firstDueAt: undefined, complete: false, heard: false };
    this.sentences.push(track);
    return track;
  }

  /** A frame of `track` went out, due to play at `dueAt`. */
  frameSent(track: SentenceTrack, dueAt: number): void {
    track.firstDueAt ??= dueAt;
    track.sentMs += FRAME_MS;
  }

  /** No more sentences will be added: once the last mark comes back the utterance has been heard. */
  seal(): void {
    this.sealed = true;
    this.settleIfHeard();
  }

  /**
   * A mark came back. After an interruption marks are ignored: a `clear` makes the far side return its
   * pending marks at once, for audio it never played. Returns whether the mark was this utterance's.
   */
  markHeard(name: string): boolean {
    const track = this.sentences.find((sentence) => sentence.mark === name);
    if (!track) return false;
    if (!this.interrupted) track.heard = true;
    this.settleIfHeard();
    return true;
  }

  /** Stops the utterance and everything it runs on. */
  interrupt(at: number): void {
    if (this.interrupted || this.settled) return;
    this.interruptedAt = at;
    this.controller.abort(new SpeechInterruptedError('The caller interrupted.'));
    this.settle();
  }

  /** Settles the utterance without its marks (they will never come: the socket closed, or a mark was lost). */
  abandon(reason: Error): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
    this.settle();
  }

  /** Resolves when every sentence's mark came back after `seal()`, or on interruption. */
  finished(): Promise<void> {
    return this.done;
  }

  /**
   * What the caller heard by `at` (the interruption's time when there was one): the sentences whose mark came
   * back (or, when marks are lost, whose audio had all played by then), then the words of the first one cut
   * off, in proportion to the part of its audio played by then.
   */
  heardText(at: number): string {
    const end = this.interruptedAt ?? at;
    const parts: string[] = [];
    for (const track of this.sentences) {
      if (track.heard) {
        if (track.text) parts.push(track.text);
        continue;
      }
      if (track.firstDueAt === undefined || track.sentMs === 0) break;
      const played = Math.min(Math.max(end - track.firstDueAt, 0), track.sentMs);
      if (track.complete && played >= track.queuedMs) {
        if (track.text) parts.push(track.text);
        continue;
      }
      const words = track.text.split(/\s+/).filter(Boolean);
      const count = Math.floor((words.length * played) / Math.max(track.queuedMs, track.sentMs));
      if (count > 0) parts.push(words.slice(0, count).join(' '));
      break;
    }
    return parts.join(' ');
  }

  private settleIfHeard(): void {
    if (this.sealed && this.sentences.every((track) => track.heard)) this.settle();
  }

  private settle(): void {
    if (this.settled) return;
    this.settled = true;
    this.onSettled?.();
  }
}

/**
 * Waits for the marks of everything the handle sent, or for the time it should take plus a grace when marks are
 * lost; audio held for the caller (they spoke over it) is not late.
 */
export async function untilHeard(handle: SpeechHandle, clock: VoiceClock, output: { readonly holding: boolean; pendingMs(): number }): Promise<void> {
  let timer: { cancel(): void } | undefined;
  const arm = () => {
    timer = clock.setTimeout(() => (output.holding ? arm() : handle.abandon(new Error('Marks did not come back.'))), output.pendingMs() + MARK_GRACE_MS);
  };
  arm();
  try {
    await handle.finished();
  } finally {
    timer?.cancel();
  }
}
