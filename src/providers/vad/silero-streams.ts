/**
 * Every call's voice activity detection on one Silero VAD v5 model: one ONNX session, and per call only the
 * model's recurrent state (2×128 floats), the last 64 samples it saw and its segmenter. The windows that are
 * ready across calls go through the model as one batch, which costs about a quarter of the CPU per window of
 * running them one by one, and a session (about 20 MB) is held once instead of once per call.
 */
import { createRequire } from 'node:module';
import { pcm16ToFloat } from '../../lib/audio/pcm.ts';
import { SILERO_RATE, SILERO_WINDOW, SpeechSegmenter } from './segmenter.ts';
import type { VadEvent, VadOptions } from './types.ts';

/** Silero v5 hears each window after the last 64 samples of the one before it. */
const CONTEXT = 64;
const STATE = 128;

interface OrtTensor {
  data: Float32Array;
}
interface OrtModule {
  Tensor: new (type: 'float32' | 'int64', data: Float32Array | BigInt64Array, dims: number[]) => OrtTensor;
  InferenceSession: {
    create(path: string, options: Record<string, unknown>): Promise<{
      run(feeds: Record<string, OrtTensor>): Promise<Record<string, OrtTensor>>;
      release(): Promise<void>;
    }>;
  };
}

class Stream {
  readonly segmenter: SpeechSegmenter;
  /** The model's state: [2][128], laid out as the model's [2, batch, 128] is per batch row. */
  readonly state = new Float32Array(2 * STATE);
  readonly context = new Float32Array(CONTEXT);
  /** Windows heard but not yet through the model, oldest first. */
  readonly ready: Float32Array[] = [];
  private partial = new Float32Array(SILERO_WINDOW);
  private filled = 0;

  constructor(options: VadOptions) {
    if (options.sampleRate !== SILERO_RATE) throw new RangeError(`Silero VAD runs at ${SILERO_RATE} Hz, not ${options.sampleRate} Hz`);
    this.segmenter = new SpeechSegmenter(options);
  }

  append(samples: Int16Array): void {
    let offset = 0;
    while (offset < samples.length) {
      const take = Math.min(SILERO_WINDOW - this.filled, samples.length - offset);
      pcm16ToFloat(samples.subarray(offset, offset + take), this.partial, this.filled);
      this.filled += take;
      offset += take;
      if (this.filled < SILERO_WINDOW) return;
      this.ready.push(this.partial);
      this.partial = new Float32Array(SILERO_WINDOW);
      this.filled = 0;
    }
  }

  /** Audio dropped unheard: the model starts afresh after the gap, and the segmenter counts it. */
  skip(samples: number): VadEvent[] {
    const cut = this.segmenter.skip(samples + this.filled + this.ready.length * SILERO_WINDOW);
    this.ready.length = 0;
    this.filled = 0;
    this.state.fill(0);
    this.context.fill(0);
    return cut;
  }
}

export class SileroStreams {
  private readonly ort: OrtModule;
  private readonly session: Awaited<ReturnType<OrtModule['InferenceSession']['create']>>;
  private readonly streams = new Map<number, Stream>();
  private readonly sampleRate: OrtTensor;
  private previous: Promise<unknown> = Promise.resolve();

  private constructor(ort: OrtModule, session: SileroStreams['session']) {
    this.ort = ort;
    this.session = session;
    this.sampleRate = new ort.Tensor('int64', BigInt64Array.from([BigInt(SILERO_RATE)]), []);
  }

  /** Loads the model (`silero_vad.onnx`) on one thread of inference: batching, not threads, is the speed-up. */
  static async load(modelPath: string): Promise<SileroStreams> {
    const ort = createRequire(import.meta.url)('onnxruntime-node') as OrtModule;
    const session = await ort.InferenceSession.create(modelPath, { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' });
    return new SileroStreams(ort, session);
  }

  open(id: number, options: VadOptions): void {
    this.streams.set(id, new Stream(options));
  }

  close(id: number): void {
    this.streams.delete(id);
  }

  /**
   * Hears frames of many streams (each after `skipped` samples dropped) and tells what they led to. Calls
   * run one after another, each after the last one's model runs: a stream's state and windows pass through
   * the model in order.
   */
  hear(frames: { id: number; samples: Int16Array; skipped: number }[]): Promise<{ id: number; event: VadEvent }[]> {
    const heard = this.previous.then(() => this.hearNow(frames));
    this.previous = heard.catch(() => undefined);
    return heard;
  }

  private async hearNow(frames: { id: number; samples: Int16Array; skipped: number }[]): Promise<{ id: number; event: VadEvent }[]> {
    const events: { id: number; event: VadEvent }[] = [];
    for (const { id, samples, skipped } of frames) {
      const stream = this.streams.get(id);
      if (!stream) continue;
      if (skipped > 0) for (const event of stream.skip(skipped)) events.push({ id, event });
      stream.append(samples);
    }
    // A stream with several windows waiting (a late batch) takes one per round, in order.
    for (;;) {
      const batch = [...this.streams].filter(([, stream]) => stream.ready.length > 0);
      if (batch.length === 0) return events;
      const probabilities = await this.infer(batch.map(([, stream]) => stream));
      batch.forEach(([id, stream], row) => {
        const window = stream.ready.shift() as Float32Array;
        // A stream closed while the model ran hears nothing more.
        if (!this.streams.has(id)) return;
        for (const event of stream.segmenter.window(probabilities[row] as number, window)) events.push({ id, event });
      });
    }
  }

  async release(): Promise<void> {
    this.streams.clear();
    await this.session.release();
  }

  private async infer(streams: Stream[]): Promise<Float32Array> {
    const rows = streams.length;
    const input = new Float32Array(rows * (CONTEXT + SILERO_WINDOW));
    const state = new Float32Array(2 * rows * STATE);
    streams.forEach((stream, row) => {
      const window = stream.ready[0] as Float32Array;
      input.set(stream.context, row * (CONTEXT + SILERO_WINDOW));
      input.set(window, row * (CONTEXT + SILERO_WINDOW) + CONTEXT);
      stream.context.set(window.subarray(SILERO_WINDOW - CONTEXT));
      for (let layer = 0; layer < 2; layer++) {
        state.set(stream.state.subarray(layer * STATE, (layer + 1) * STATE), (layer * rows + row) * STATE);
      }
    });
    const { Tensor } = this.ort;
    const output = await this.session.run({
      input: new Tensor('float32', input, [rows, CONTEXT + SILERO_WINDOW]),
      state: new Tensor('float32', state, [2, rows, STATE]),
      sr: this.sampleRate,
    });
    const next = (output.stateN as OrtTensor).data;
    streams.forEach((stream, row) => {
      for (let layer = 0; layer < 2; layer++) {
        stream.state.set(next.subarray((layer * rows + row) * STATE, (layer * rows + row + 1) * STATE), layer * STATE);
      }
    });
    return (output.output as OrtTensor).data;
  }
}
