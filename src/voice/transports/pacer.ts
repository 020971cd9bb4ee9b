/**
 * Sends outbound audio in real time: one 20 ms frame when it is due, a small lead ahead of the listener, so
 * the far side plays smoothly while a `clear` drops at most the lead. Each frame's due time is reckoned from
 * the start of the run (start + n·20 ms), not from the last timer, so timer lateness never accumulates into
 * drift. The queue is bounded: a writer waits for room, which slows synthesis to the pace of speech.
 *
 * Output can be held (the caller started speaking over it): the far side is told to drop what it has, and the
 * frames it had not played yet, with the marks sent after them, go back to the front of the queue. Resumed, it
 * goes on from the very frame the caller stopped hearing; cleared, it is gone.
 */
import { FRAME_MS } from '../audio/frames.ts';
import type { VoiceClock } from '../clock.ts';

/** Where paced output goes: the transport (and the recorder). */
export interface PacedOutput {
  /** A frame to play at `dueAt` (clock milliseconds). */
  frame(samples: Int16Array, dueAt: number): void;
  mark(name: string): void;
  clear(): void;
}

export interface PacerOptions {
  clock: VoiceClock;
  /** How far ahead of real time frames go out; the most a `clear` can fail to take back. */
  leadMs?: number;
  /** Frames the queue holds before writers wait. */
  capacityFrames?: number;
  /** Mixes a background into every frame sent, and makes frames of it alone while nothing is queued. */
  background?: (frame: Int16Array) => void;
  /** Samples in a frame (20 ms at the internal rate). */
  frameSamples: number;
}

type Item =
  | { kind: 'frame'; samples: Int16Array; onSent: ((dueAt: number) => void) | undefined }
  | { kind: 'mark'; name: string };

/** What went out recently: frames the far side may not have played yet, and the marks between them. */
type Sent = { item: Item; dueAt: number };

export const DEFAULT_LEAD_MS = 80;

export class OutputPacer {
  private readonly output: PacedOutput;
  private readonly clock: VoiceClock;
  private readonly leadMs: number;
  private readonly capacity: number;
  private readonly background: ((frame: Int16Array) => void) | undefined;
  private readonly frameSamples: number;
  private readonly queue: Item[] = [];
  private queuedFrames = 0;
  /** When the next frame is due to play; undefined while nothing plays. */
  private nextDue: number | undefined;
  private timer: { cancel(): void } | undefined;
  private waiters: (() => void)[] = [];
  private closed = false;
  private held = false;
  private recent: Sent[] = [];

  constructor(output: PacedOutput, options: PacerOptions) {
    this.output = output;
    this.clock = options.clock;
    this.leadMs = options.leadMs ?? DEFAULT_LEAD_MS;
    this.capacity = options.capacityFrames ?? 25;
    this.background = options.background;
    this.frameSamples = options.frameSamples;
    if (this.background) this.schedule(0);
  }

  /** Frames queued and not yet sent. */
  get pendingFrames(): number {
    return this.queuedFrames;
  }

  /**
   * Whether the mark is still queued: not sent, or queued again by hold(). The far side answers a `clear` by
   * returning its pending marks at once, for audio it never played; such an echo is not the mark being heard.
   */
  isPending(name: string): boolean {
    return this.queue.some((item) => item.kind === 'mark' && item.name === name);
  }

  /** Whether output is held (hold() until resume() or clear()). */
  get holding(): boolean {
    return this.held;
  }

  /**
   * Queues one frame, waiting first while the queue is full. `onSent` hears the frame's due time when it goes
   * out. Nothing is queued when `signal` aborted during the wait (a clear woke the writer).
   */
  async write(samples: Int16Array, onSent?: (dueAt: number) => void, signal?: AbortSignal): Promise<void> {
    while (this.queuedFrames >= this.capacity && !this.closed && !signal?.aborted) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    if (this.closed || signal?.aborted) return;
    this.queue.push({ kind: 'frame', samples, onSent });
    this.queuedFrames++;
    if (!this.timer) this.schedule(0);
  }

  /** Sends a mark once every frame queued before it has gone out. */
  mark(name: string): void {
    if (this.closed) return;
    this.queue.push({ kind: 'mark', name });
    if (!this.timer) this.schedule(0);
  }

  /** Drops the queue and tells the far side to drop what it holds (held output has already told it); the next frame starts a new run. */
  clear(): void {
    this.queue.length = 0;
    this.queuedFrames = 0;
    this.nextDue = undefined;
    this.recent = [];
    if (!this.closed && !this.held) this.output.clear();
    this.held = false;
    this.wake();
  }

  /**
   * Stops sending the queued audio and tells the far side to drop what it holds; the frames it had not played
   * by now (their onSent has been told; it is not told again) and the marks after them are queued again first.
   */
  hold(): void {
    if (this.held || this.closed) return;
    this.held = true;
    const now = this.clock.now();
    const unplayed = this.recent.findIndex((sent) => sent.item.kind === 'frame' && sent.dueAt > now);
    const back = unplayed < 0 ? [] : this.recent.slice(unplayed).map(({ item }) => (item.kind === 'frame' ? { ...item, onSent: undefined } : item));
    this.recent = [];
    this.queue.unshift(...back);
    this.queuedFrames += back.filter((item) => item.kind === 'frame').length;
    this.nextDue = undefined;
    this.output.clear();
  }

  /** Sends again what hold() kept, from the frame the far side stopped at. */
  resume(): void {
    if (!this.held) return;
    this.held = false;
    if (!this.closed && !this.timer) this.schedule(0);
  }

  close(): void {
    this.closed = true;
    this.timer?.cancel();
    this.timer = undefined;
    this.queue.length = 0;
    this.queuedFrames = 0;
    this.wake();
  }

  private schedule(ms: number): void {
    this.timer?.cancel();
    this.timer = this.clock.setTimeout(() => this.tick(), Math.max(ms, 0));
  }

  private tick(): void {
    this.timer = undefined;
    if (this.closed) return;
    const now = this.clock.now();
    // After an underrun or a clear the far side has nothing left: the next frame plays now.
    if (this.nextDue === undefined || this.nextDue < now - FRAME_MS) this.nextDue = now;
    this.sendMarks();
    // Frames whose time has passed have been played: only those ahead of now could be taken back.
    while (this.recent.length > 0 && (this.recent[0] as Sent).dueAt <= now - FRAME_MS) this.recent.shift();
    while (this.nextDue <= now + this.leadMs) {
      const item = (this.held ? undefined : this.queue.shift()) as Extract<Item, { kind: 'frame' }> | undefined;
      let samples: Int16Array;
      if (item) {
        this.queuedFrames--;
        samples = item.samples;
      } else if (this.background) {
        samples = new Int16Array(this.frameSamples);
      } else {
        this.nextDue = Math.max(this.nextDue, now);
        break;
      }
      this.background?.(samples);
      this.output.frame(samples, this.nextDue);
      if (item) this.recent.push({ item, dueAt: this.nextDue });
      item?.onSent?.(this.nextDue);
      this.nextDue += FRAME_MS;
      // A mark goes right after the last frame before it: it takes no time to play.
      this.sendMarks();
    }
    this.wake();
    if ((this.queue.length > 0 && !this.held) || this.background) this.schedule(this.nextDue - this.leadMs - now);
  }

  private sendMarks(): void {
    if (this.held) return;
    for (let head = this.queue[0]; head?.kind === 'mark'; head = this.queue[0]) {
      this.queue.shift();
      this.output.mark(head.name);
      this.recent.push({ item: head, dueAt: this.nextDue ?? this.clock.now() });
    }
  }

  private wake(): void {
    if (this.queuedFrames < this.capacity || this.closed) {
      const waiters = this.waiters;
      this.waiters = [];
      for (const resolve of waiters) resolve();
    }
  }
}
