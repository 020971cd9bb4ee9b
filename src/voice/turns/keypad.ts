/**
 * The caller's keypad (DTMF keys from the media stream's `dtmf` messages). While a `collect_keypad` tool
 * waits, keys go to its entry, which ends at the stop key or once the caller has typed nothing for the
 * tool's timeout after the assistant stopped speaking. Keys pressed when nothing collects them are the
 * caller's input too: they are gathered until the free stop key (`#`) or a pause, and handed on as one turn.
 */
import type { KeypadEntry } from '../../agent/ports.ts';
import type { VoiceClock } from '../clock.ts';

/** How long keys typed outside a collection wait for another key before they go to the model as a turn. */
export const FREE_KEYS_PAUSE_MS = 3000;
/** The key that hands keys typed outside a collection on at once. */
export const FREE_KEYS_STOP = '#';
/** How often a collection looks again whether the assistant has stopped speaking. */
const SPEAKING_POLL_MS = 100;

export interface CollectOptions {
  timeoutMs: number;
  stopKey: '#' | '*';
  /** Whether the assistant is still being heard: the timeout counts only from when it is not. */
  speaking: () => boolean;
  signal: AbortSignal;
}

interface Collection {
  options: CollectOptions;
  digits: string;
  lastKeyAt: number | undefined;
  /** Since when the assistant has been silent; undefined while it speaks. */
  quietSince: number | undefined;
  timer: { cancel(): void } | undefined;
  finish: (entry: KeypadEntry) => void;
}

export class Keypad {
  private readonly clock: VoiceClock;
  private readonly freeInput: (keys: string) => void;
  private collection: Collection | undefined;
  /** Collections waiting for the current one to end. */
  private readonly queued: (() => void)[] = [];
  private free = '';
  private freeTimer: { cancel(): void } | undefined;
  private closed = false;

  /** `freeInput` hears the keys typed outside a collection, gathered into one entry. */
  constructor(clock: VoiceClock, freeInput: (keys: string) => void) {
    this.clock = clock;
    this.freeInput = freeInput;
  }

  /** Whether a tool is collecting keys now. */
  get collecting(): boolean {
    return this.collection !== undefined;
  }

  /** One key from the line. */
  press(key: string): void {
    if (this.closed) return;
    const collection = this.collection;
    if (collection) {
      if (key === collection.options.stopKey) return this.end(collection, 'stop_key');
      collection.digits += key;
      collection.lastKeyAt = this.clock.now();
      this.check(collection);
      return;
    }
    this.free += key;
    this.freeTimer?.cancel();
    if (key === FREE_KEYS_STOP) this.handOnFree();
    else this.freeTimer = this.clock.setTimeout(() => this.handOnFree(), FREE_KEYS_PAUSE_MS);
  }

  /**
   * Collects one entry. Keys typed just before (outside any collection, not yet handed on) belong to it: the
   * caller may start typing while the question is still being asked. One collection at a time; a second
   * one waits for its turn. Rejects with the signal's reason when it aborts.
   */
  async collect(options: CollectOptions): Promise<KeypadEntry> {
    while (this.collection && !this.closed) await new Promise<void>((resolve) => this.queued.push(resolve));
    options.signal.throwIfAborted();
    if (this.closed) throw new Error('The call has ended.');
    return new Promise<KeypadEntry>((resolve, reject) => {
      const abort = () => {
        if (this.collection === collection) this.stop(collection);
        reject(options.signal.reason as Error);
      };
      const collection: Collection = {
        options, digits: '', lastKeyAt: undefined, quietSince: undefined, timer: undefined,
        finish: (entry) => {
          options.signal.removeEventListener('abort', abort);
          resolve(entry);
        },
      };
      options.signal.addEventListener('abort', abort, { once: true });
      this.collection = collection;
      const early = this.free;
      this.free = '';
      this.freeTimer?.cancel();
      for (const key of early) if (this.collection === collection) this.press(key);
      if (this.collection === collection) this.check(collection);
    });
  }

  /** The call is over: nothing more is collected or handed on. */
  close(): void {
    this.closed = true;
    this.freeTimer?.cancel();
    if (this.collection) this.stop(this.collection);
    for (const waiting of this.queued.splice(0)) waiting();
  }

  /** Ends the collection when its time is up, or looks again when it might be. */
  private check(collection: Collection): void {
    collection.timer?.cancel();
    const now = this.clock.now();
    if (collection.options.speaking()) {
      collection.quietSince = undefined;
      collection.timer = this.clock.setTimeout(() => this.check(collection), SPEAKING_POLL_MS);
      return;
    }
    collection.quietSince ??= now;
    const deadline = Math.max(collection.lastKeyAt ?? collection.quietSince, collection.quietSince) + collection.options.timeoutMs;
    if (now >= deadline) return this.end(collection, 'timeout');
    collection.timer = this.clock.setTimeout(() => this.check(collection), deadline - now);
  }

  private end(collection: Collection, endedBy: KeypadEntry['endedBy']): void {
    this.stop(collection);
    collection.finish({ digits: collection.digits, endedBy });
  }

  private stop(collection: Collection): void {
    collection.timer?.cancel();
    if (this.collection === collection) this.collection = undefined;
    this.queued.shift()?.();
  }

  private handOnFree(): void {
    this.freeTimer?.cancel();
    this.freeTimer = undefined;
    const keys = this.free;
    this.free = '';
    if (keys && !this.closed) this.freeInput(keys);
  }
}
