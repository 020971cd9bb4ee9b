/**
 * The caller's audio of the turn in progress: kept from a little before the voice detector's onset (so the
 * first syllable is whole) to now, pauses included, for the recognizer to decode again as it grows and for the
 * turn model to hear at each pause. Between turns the last seconds are kept: the detector runs on a thread
 * and tells of an onset after a round trip, seconds late while its model loads on a replica's first call.
 * Times are stream milliseconds.
 */

/** Audio kept from before the detector's onset. */
const LEAD_IN_MS = 200;
/** Audio kept between turns, for an onset the detector tells late. */
const IDLE_KEEP_MS = 5000;
/** Audio dropped at once when the audio between turns is trimmed, so trimming is not a copy per frame. */
const TRIM_MS = 1000;

export interface TurnFrame {
  /** Stream time of the frame's end. */
  at: number;
  samples: Int16Array;
  /** Mean square of the samples. */
  energy: number;
}

export class TurnAudio {
  private frames: TurnFrame[] = [];
  private open = false;

  /** Whether a turn has begun. */
  get inTurn(): boolean {
    return this.open;
  }

  /** Stream time of the first frame kept, and of the last. */
  get firstAt(): number | undefined {
    return this.frames[0]?.at;
  }

  get lastAt(): number | undefined {
    return this.frames.at(-1)?.at;
  }

  /** One frame ending at stream time `endMs`; its mean square. */
  push(samples: Int16Array, endMs: number): number {
    let energy = 0;
    for (const sample of samples) energy += sample * sample;
    energy /= Math.max(samples.length, 1);
    this.frames.push({ at: endMs, samples, energy });
    if (!this.open && endMs - (this.frames[0] as TurnFrame).at > IDLE_KEEP_MS + TRIM_MS) this.trim(endMs - IDLE_KEEP_MS);
    return energy;
  }

  /** A turn begins with speech at `onsetMs`: its audio is kept from a little before. */
  start(onsetMs: number): void {
    if (this.open) return;
    this.open = true;
    this.trim(onsetMs - LEAD_IN_MS);
  }

  /** The audio of the turn so far, or its last `lastMs` up to stream time `untilMs`. */
  audio(lastMs = Infinity, untilMs = Infinity): Int16Array {
    const end = Math.min(untilMs, this.lastAt ?? 0);
    const parts = this.frames.filter((frame) => frame.at > end - lastMs && frame.at <= end);
    const joined = new Int16Array(parts.reduce((sum, frame) => sum + frame.samples.length, 0));
    let offset = 0;
    for (const frame of parts) {
      joined.set(frame.samples, offset);
      offset += frame.samples.length;
    }
    return joined;
  }

  /** Drops the audio up to `untilMs`: its words are settled (a long turn). */
  settle(untilMs: number): void {
    this.trim(untilMs);
  }

  /** The turn is over: its audio goes; what follows it is kept for the next. */
  end(): void {
    this.open = false;
    if (this.lastAt !== undefined) this.trim(this.lastAt - LEAD_IN_MS);
  }

  private trim(beforeMs: number): void {
    let drop = 0;
    while (drop < this.frames.length && (this.frames[drop] as TurnFrame).at <= beforeMs) drop++;
    if (drop > 0) this.frames = this.frames.slice(drop);
  }
}
