/**
 * The model's spoken items on their way to the caller: each audio delta is resampled once from the model's
 * rate to the internal one, cut into 20 ms frames for the pacer, and the item ends with a mark. Per item it
 * keeps what was received and sent and when its first frame played, so a barge-in knows how much of the item
 * the caller heard: the position to truncate the model's history at, and the words to keep in the transcript.
 * An item is heard when its mark comes back, or, should the mark be lost, once its audio must have played.
 */
import { FRAME_MS, INTERNAL_SAMPLE_RATE, samplesPerFrame } from '../audio/frames.ts';
import { Resampler } from '../../lib/audio/resampler.ts';
import type { VoiceClock } from '../clock.ts';
import { MARK_GRACE_MS } from '../session.ts';
import type { OutputPacer } from '../transports/pacer.ts';

/** One assistant item of a response: its audio and the words beside it. */
export interface SpokenItem {
  itemId: string;
  responseId: string;
  mark: string;
  /** The transcript so far; the model's words run ahead of its audio. */
  text: string;
  /** Model audio received, in milliseconds. */
  receivedMs: number;
  /** Audio sent to the caller, and when its first frame was due to play. */
  sentMs: number;
  firstDueAt: number | undefined;
  /** All of its audio is queued and its mark follows it. */
  complete: boolean;
  /** Its mark came back before any interruption: the caller heard it all. */
  heard: boolean;
  /** Cut off by the caller; nothing more of it plays. */
  interrupted: boolean;
}

/** What the caller heard of an item cut off by a barge-in. */
export interface HeardPart {
  item: SpokenItem;
  /** Milliseconds of the item's audio played, for `truncate`. */
  playedMs: number;
  text: string;
}

export class RealtimePlayback {
  private readonly pacer: OutputPacer;
  private readonly clock: VoiceClock;
  private readonly modelRate: number;
  private readonly frameSamples = samplesPerFrame(INTERNAL_SAMPLE_RATE);
  private readonly items = new Map<string, { item: SpokenItem; resampler: Resampler; pending: Int16Array }>();
  private readonly onHeard: (item: SpokenItem) => void;
  private readonly lostMarkTimers = new Set<{ cancel(): void }>();
  private marks = 0;

  constructor(options: { pacer: OutputPacer; clock: VoiceClock; modelRate: number; onHeard: (item: SpokenItem) => void }) {
    this.pacer = options.pacer;
    this.clock = options.clock;
    this.modelRate = options.modelRate;
    this.onHeard = options.onHeard;
  }

  /** Items whose audio started and that are neither heard to the end nor cut off, oldest first. */
  get playing(): SpokenItem[] {
    return [...this.items.values()].map((entry) => entry.item).filter((item) => !item.heard && !item.interrupted);
  }

  item(responseId: string, itemId: string): SpokenItem {
    let entry = this.items.get(itemId);
    if (!entry) {
      const item: SpokenItem = {
        itemId, responseId, mark: `rt${++this.marks}`, text: '', receivedMs: 0, sentMs: 0, firstDueAt: undefined, complete: false, heard: false, interrupted: false,
      };
      entry = { item, resampler: new Resampler(this.modelRate, INTERNAL_SAMPLE_RATE), pending: new Int16Array(0) };
      this.items.set(itemId, entry);
    }
    return entry.item;
  }

  /** Queues a delta of the item's audio; waits while the pacer is full. */
  async audio(responseId: string, itemId: string, pcm: Int16Array): Promise<void> {
    const item = this.item(responseId, itemId);
    const entry = this.items.get(itemId)!;
    if (item.interrupted || item.complete) return;
    item.receivedMs += (pcm.length * 1000) / this.modelRate;
    const resampled = entry.resampler.process(pcm);
    const joined = new Int16Array(entry.pending.length + resampled.length);
    joined.set(entry.pending);
    joined.set(resampled, entry.pending.length);
    let offset = 0;
    for (; offset + this.frameSamples <= joined.length; offset += this.frameSamples) {
      // A barge-in while this delta waited for room: the rest of it is not played.
      if (item.interrupted) return;
      await this.write(item, joined.slice(offset, offset + this.frameSamples));
    }
    entry.pending = joined.slice(offset);
  }

  /** The item's audio is all there: the last partial frame goes out padded with silence, then its mark. */
  async complete(itemId: string): Promise<void> {
    const entry = this.items.get(itemId);
    if (!entry || entry.item.complete || entry.item.interrupted) return;
    if (entry.pending.length > 0) {
      const frame = new Int16Array(this.frameSamples);
      frame.set(entry.pending);
      entry.pending = new Int16Array(0);
      await this.write(entry.item, frame);
    }
    entry.item.complete = true;
    this.pacer.mark(entry.item.mark);
    const timer = this.clock.setTimeout(() => {
      this.lostMarkTimers.delete(timer);
      this.markHeard(entry.item.mark);
    }, this.pacer.pendingFrames * FRAME_MS + MARK_GRACE_MS);
    this.lostMarkTimers.add(timer);
  }

  /** A mark came back: the item it ends has been heard, when it is one of ours and was not cut off. */
  markHeard(name: string): void {
    for (const { item } of this.items.values()) {
      if (item.mark !== name || item.interrupted) continue;
      item.heard = true;
      this.items.delete(item.itemId);
      this.onHeard(item);
      return;
    }
  }

  close(): void {
    for (const timer of this.lostMarkTimers) timer.cancel();
    this.lostMarkTimers.clear();
  }

  /** Stops every playing item now; `clear` also drops the audio queued here and at the far side. */
  interrupt(clear: boolean): HeardPart[] {
    const now = this.clock.now();
    const parts = this.playing.map((item) => {
      item.interrupted = true;
      const playedMs = item.firstDueAt === undefined ? 0 : Math.min(Math.max(now - item.firstDueAt, 0), item.sentMs, item.receivedMs);
      return { item, playedMs, text: heardWords(item.text, playedMs, item.receivedMs) };
    });
    for (const { item } of parts) this.items.delete(item.itemId);
    if (clear) this.pacer.clear();
    return parts;
  }

  private write(item: SpokenItem, frame: Int16Array): Promise<void> {
    return this.pacer.write(frame, (dueAt) => {
      item.firstDueAt ??= dueAt;
      item.sentMs += FRAME_MS;
    });
  }
}

/** The words of `text` in proportion to the part of its audio played. */
function heardWords(text: string, playedMs: number, totalMs: number): string {
  if (totalMs <= 0 || playedMs <= 0) return '';
  const words = text.split(/\s+/).filter(Boolean);
  if (playedMs >= totalMs) return words.join(' ');
  return words.slice(0, Math.floor((words.length * playedMs) / totalMs)).join(' ');
}
