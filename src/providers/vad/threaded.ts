import { Worker } from 'node:worker_threads';
import type { Logger } from '../../logger.ts';
import type { FromVadThread, ToVadThread, VadThreadData } from './thread-protocol.ts';
import type { VadEvent, VadFactory, VadOptions, VoiceActivityDetector } from './types.ts';

const entry = new URL('./silero-thread.ts', import.meta.url);


export interface ThreadedVadOptions {
  modelPath: string;
  /** Worker threads; each detector lives on the one holding fewest. */
  threads: number;
  logger: Logger;
  /**
   * A thread that has left a batch unanswered for longer than this is behind real time: further frames are
   * dropped (and counted, so event times stay stream times) instead of queueing. Only an overloaded machine
   * gets there, and then a late detector is worse than a deaf moment: a turn's end heard seconds late holds
   * up every reply. A burst of audio (what a caller said while the call loaded) is not a backlog: the
   * thread answers it in milliseconds.
   */
  maxBacklogMs?: number;
}

/**
 * How long a frame may wait for others to share its message to the thread. A message per socket read cost
 * the media role's event loop 6 % of its time at 100 calls (thousands of messages a second); batching for
 * 5 ms makes it about 200 a second, and 5 ms is little beside the 150 ms a barge-in waits for and the
 * 300-1200 ms of silence that ends a turn.
 */
const BATCH_MS = 5;

/**
 * Silero detectors on worker threads. A call's frames are copied into its thread's next batch; a batch is
 * posted BATCH_MS after its first frame, and the thread answers each batch with the events it found. The
 * media role's event loop thus pays a copy per frame and a message per batch instead of the model's
 * inference per 32 ms window per call.
 */
export function createThreadedSileroVad(options: ThreadedVadOptions): VadFactory {
  const threads: VadThread[] = [];
  let nextId = 1;
  return {
    name: 'silero',
    create(vadOptions: VadOptions, listener: (event: VadEvent) => void): VoiceActivityDetector {
      while (threads.length < options.threads) threads.push(new VadThread(options));
      const thread = threads.reduce((least, candidate) => (candidate.load < least.load ? candidate : least));
      return thread.open(nextId++, vadOptions, listener);
    },
    async close() {
      await Promise.all(threads.splice(0).map((thread) => thread.close()));
    },
  };
}

interface ThreadedDetector {
  options: VadOptions;
  listener: (event: VadEvent) => void;
  /** Samples dropped since its last frame was sent. */
  skipped: number;
  /** Samples sent (or dropped) whose batch the thread has not answered. */
  pending: number;
}

class VadThread {
  private readonly options: ThreadedVadOptions;
  private worker: Worker | undefined;
  private readonly detectors = new Map<number, ThreadedDetector>();
  private batch: { id: number; frame: Int16Array; skipped: number }[] = [];
  private flushScheduled = false;
  /** When each batch posted and not yet answered was posted, oldest first: the thread answers in order. */
  private unanswered: number[] = [];
  /** The samples of each detector in each unanswered batch, in the same order. */
  private unansweredSamples: Map<number, number>[] = [];
  private framesDropped = 0;
  private closing = false;
  /** Until its model has loaded a thread is slow, not behind: nothing is dropped while it loads. */
  private ready = false;
  private readonly maxBacklogMs: number;

  constructor(options: ThreadedVadOptions) {
    this.options = options;
    this.maxBacklogMs = options.maxBacklogMs ?? 250;
  }

  get load(): number {
    return this.detectors.size;
  }

  open(id: number, options: VadOptions, listener: (event: VadEvent) => void): VoiceActivityDetector {
    const detector: ThreadedDetector = { options, listener, skipped: 0, pending: 0 };
    this.detectors.set(id, detector);
    this.post({ type: 'open', id, options });
    return {
      push: (frame) => this.push(id, detector, frame),
      pendingMs: () => (detector.pending * 1000) / options.sampleRate,
      close: () => {
        if (!this.detectors.delete(id)) return;
        this.post({ type: 'close', id });
      },
    };
  }

  async close(): Promise<void> {
    this.closing = true;
    this.detectors.clear();
    await this.worker?.terminate();
    this.worker = undefined;
  }

  private push(id: number, detector: ThreadedDetector, frame: Int16Array): void {
    if (!this.detectors.has(id)) return;
    if (this.ready && this.unanswered.length > 0 && performance.now() - (this.unanswered[0] as number) > this.maxBacklogMs) {
      detector.skipped += frame.length;
      // Unheard, not silent: a pause is not long until the thread has caught up.
      detector.pending += frame.length;
      if (this.framesDropped++ % 500 === 0) {
        this.options.logger.warn({ framesDropped: this.framesDropped, detectors: this.detectors.size }, 'the voice activity thread is behind real time; dropping frames');
      }
      return;
    }
    this.batch.push({ id, frame: frame.slice(), skipped: detector.skipped });
    detector.pending += frame.length;
    detector.skipped = 0;
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setTimeout(() => this.flush(), BATCH_MS);
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.batch;
    this.batch = [];
    if (batch.length === 0 || this.closing) return;
    const ids = new Int32Array(batch.length);
    const lengths = new Int32Array(batch.length);
    const skipped = new Int32Array(batch.length);
    const samples = new Int16Array(batch.reduce((sum, item) => sum + item.frame.length, 0));
    const perDetector = new Map<number, number>();
    let offset = 0;
    batch.forEach((item, i) => {
      perDetector.set(item.id, (perDetector.get(item.id) ?? 0) + item.frame.length + item.skipped);
      ids[i] = item.id;
      lengths[i] = item.frame.length;
      skipped[i] = item.skipped;
      samples.set(item.frame, offset);
      offset += item.frame.length;
    });
    this.unanswered.push(performance.now());
    this.unansweredSamples.push(perDetector);
    this.post({ type: 'audio', ids, lengths, skipped, samples }, [ids.buffer, lengths.buffer, skipped.buffer, samples.buffer]);
  }

  private post(message: ToVadThread, transfer: ArrayBuffer[] = []): void {
    if (this.closing) return;
    this.started().postMessage(message, transfer);
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const data: VadThreadData = { modelPath: this.options.modelPath };
    const worker = new Worker(entry, { workerData: data });
    worker.unref();
    worker.on('message', (message: FromVadThread) => this.received(message));
    worker.on('error', (error) => this.options.logger.error({ err: error }, 'the voice activity thread failed'));
    worker.on('exit', (code) => {
      if (this.closing || this.worker !== worker) return;
      this.worker = undefined;
      this.ready = false;
      this.unanswered = [];
      this.unansweredSamples = [];
      for (const detector of this.detectors.values()) detector.pending = 0;
      if (this.detectors.size === 0) return;
      // The live calls keep listening on a new thread, their detectors fresh: what was mid-utterance is lost.
      this.options.logger.warn({ code, detectors: this.detectors.size }, 'the voice activity thread stopped; starting another');
      for (const [id, detector] of this.detectors) this.post({ type: 'open', id, options: detector.options });
    });
    this.worker = worker;
    return worker;
  }

  private received(message: FromVadThread): void {
    if (message.type === 'ready') {
      this.ready = true;
      // What waited for the model is not late: the thread's lag counts from now.
      const now = performance.now();
      this.unanswered = this.unanswered.map(() => now);
      return;
    }
    if (message.type === 'failed') {
      this.options.logger.error({ error: message.message }, 'a voice activity detector could not be made; its call hears nothing');
      return;
    }
    this.unanswered.shift();
    for (const [id, samples] of this.unansweredSamples.shift() ?? []) {
      const detector = this.detectors.get(id);
      if (detector) detector.pending = Math.max(detector.pending - samples, 0);
    }
    for (const { id, event } of message.events) this.detectors.get(id)?.listener(event);
  }
}
