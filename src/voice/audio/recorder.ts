/**
 * Records a call: both sides mixed into one mono 16-bit WAV at the internal rate, written to a sink in
 * chunks as the call goes, so memory stays bounded however long the call lasts. The caller's audio is laid
 * end to end as it arrives; the assistant's at the time each frame was due to play, so overlaps (barge-in)
 * sound as they happened. A chunk is written once both sides are past it.
 *
 * The first write is a header with provisional sizes (0xFFFFFFFF, which streaming readers take as "to the
 * end"); `finish` hands the sink the final header for the same 44 bytes, to patch in where it can seek.
 */
import type { VoiceClock } from '../clock.ts';
import { wavHeader } from '../../lib/audio/wav.ts';
import { INTERNAL_SAMPLE_RATE } from './frames.ts';

export interface RecordingSink {
  write(chunk: Buffer): Promise<void>;
  /** The recording is complete; `header` replaces the first 44 bytes written. */
  finish(header: Buffer): Promise<void>;
}

const SAMPLES_PER_MS = INTERNAL_SAMPLE_RATE / 1000;

export class CallRecorder {
  private readonly sink: RecordingSink;
  private readonly clock: VoiceClock;
  private readonly origin: number;
  private readonly chunkSamples: number;
  /** Samples held back for frames still to come (the outbound lead, inbound jitter). */
  private readonly holdSamples: number;
  /** The mix not yet written, from sample index `flushed` on. */
  private readonly window: Int32Array;
  private flushed = 0;
  private inboundCursor = 0;
  private dataBytes = 0;
  private writing: Promise<void>;
  private finished = false;

  constructor(sink: RecordingSink, options: { clock: VoiceClock; chunkMs?: number; holdMs?: number }) {
    this.sink = sink;
    this.clock = options.clock;
    this.origin = options.clock.now();
    this.chunkSamples = (options.chunkMs ?? 1000) * SAMPLES_PER_MS;
    this.holdSamples = (options.holdMs ?? 500) * SAMPLES_PER_MS;
    this.window = new Int32Array(this.chunkSamples * 2 + this.holdSamples * 2);
    this.writing = sink.write(wavHeader(0xffffffff - 36, INTERNAL_SAMPLE_RATE));
    // A failed write surfaces from finish(); until then it must not count as unhandled.
    this.writing.catch(() => undefined);
  }

  /** Caller audio, in the order it arrived. */
  inbound(frame: Int16Array): void {
    this.add(this.inboundCursor, frame);
    this.inboundCursor += frame.length;
    this.flushReady();
  }

  /** Assistant audio due to play at `dueAt` (clock milliseconds). */
  outbound(frame: Int16Array, dueAt: number): void {
    this.add(Math.round((dueAt - this.origin) * SAMPLES_PER_MS), frame);
  }

  /** Writes the rest up to now (the call's length) and the final header. */
  async finish(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    const end = Math.max(Math.round((this.clock.now() - this.origin) * SAMPLES_PER_MS), this.inboundCursor);
    while (this.flushed < end) this.flush(Math.min(end - this.flushed, this.chunkSamples));
    await this.writing;
    await this.sink.finish(wavHeader(this.dataBytes, INTERNAL_SAMPLE_RATE));
  }

  private add(start: number, samples: Int16Array): void {
    if (this.finished) return;
    // Audio from before what is written, or too far ahead for the window, cannot be placed: it is dropped.
    const from = Math.max(start, this.flushed);
    const to = Math.min(start + samples.length, this.flushed + this.window.length);
    for (let index = from; index < to; index++) this.window[index - this.flushed]! += samples[index - start]!;
  }

  private flushReady(): void {
    const now = Math.round((this.clock.now() - this.origin) * SAMPLES_PER_MS);
    const safe = Math.min(this.inboundCursor, now) - this.holdSamples;
    while (safe - this.flushed >= this.chunkSamples) this.flush(this.chunkSamples);
  }

  private flush(count: number): void {
    const chunk = Buffer.alloc(count * 2);
    for (let i = 0; i < count; i++) {
      const value = this.window[i]!;
      chunk.writeInt16LE(value > 32767 ? 32767 : value < -32768 ? -32768 : value, i * 2);
    }
    this.window.copyWithin(0, count);
    this.window.fill(0, this.window.length - count);
    this.flushed += count;
    this.dataBytes += chunk.length;
    const sink = this.sink;
    this.writing = this.writing.then(() => sink.write(chunk));
    this.writing.catch(() => undefined);
  }
}
