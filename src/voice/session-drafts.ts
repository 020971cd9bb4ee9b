/**
 * Preemptive replies: when the caller pauses with words, the reply to them is drafted at once (the model
 * request, and the synthesis of its first sentences) and held, so that when the turn policy commits the turn
 * the answer is ready instead of only then asked for. A draft is a held SpeechHandle (speech.ts): nothing of
 * it reaches the caller, and no tool runs, until it is taken; a draft that is not taken (the caller went on,
 * or the committed words are not those it answers) is abandoned through its signal and leaves no trace: it is
 * not in the history, the transcript or a webhook, and calls are billed by their time, not their requests.
 */
import type { ReplyOutcome } from './reply.ts';
import { SpeechHandle } from './speech.ts';

export interface Draft {
  /** The caller's words the draft answers. */
  text: string;
  handle: SpeechHandle;
  /** The length of the history the draft was asked with: it holds only if nothing was added since. */
  historyLength: number;
  outcome: Promise<ReplyOutcome>;
}

/** Words as a reply depends on them: case, punctuation and spacing aside. */
export function sameWords(a: string, b: string): boolean {
  const words = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}\s]/gu, ' ').split(/\s+/).filter(Boolean).join(' ');
  return words(a) === words(b);
}

export class DraftReplies {
  private current: Draft | undefined;
  private discardedCount = 0;
  private readonly start: (text: string, handle: SpeechHandle) => Promise<ReplyOutcome>;

  /** `start` runs the reply to `text` on the held handle. */
  constructor(start: (text: string, handle: SpeechHandle) => Promise<ReplyOutcome>) {
    this.start = start;
  }

  /** Drafts discarded since the last turn was committed. */
  get discarded(): number {
    return this.discardedCount;
  }

  /** Drafts the reply to `text` (the one before, if any, is discarded). */
  draft(text: string, historyLength: number): void {
    if (this.current && sameWords(this.current.text, text) && this.current.historyLength === historyLength) return;
    this.discard();
    const handle = new SpeechHandle('draft', { held: true });
    const outcome = this.start(text, handle);
    this.current = { text, handle, historyLength, outcome };
  }

  /** The caller went on, or the draft is not wanted: it stops, and is counted. */
  discard(): void {
    const draft = this.current;
    if (!draft) return;
    this.current = undefined;
    this.discardedCount++;
    draft.handle.abandon(new Error('The draft was discarded.'));
  }

  /**
   * The turn is committed with `text`: the draft answering those words with the history it was asked with,
   * taken, or undefined (a draft answering anything else is discarded). The count of discarded drafts starts again.
   */
  take(text: string, historyLength: number): { draft: Draft | undefined; discarded: number } {
    const draft = this.current;
    let taken: Draft | undefined;
    if (draft && sameWords(draft.text, text) && draft.historyLength === historyLength && !draft.handle.signal.aborted) {
      this.current = undefined;
      taken = draft;
    } else {
      this.discard();
    }
    const discarded = this.discardedCount;
    this.discardedCount = 0;
    return { draft: taken, discarded };
  }

  /** The call is ending: a draft still held goes, uncounted. */
  close(): void {
    this.current?.handle.abandon(new Error('The call has ended.'));
    this.current = undefined;
  }
}
