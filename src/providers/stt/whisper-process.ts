import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';

/** What a worker answers for one utterance (whisper_worker.py). */
export interface WorkerReply {
  text: string;
  audio_ms: number;
  cpu_ms: number;
  ms: number;
  frames: number;
  /** Whisper's probability that the utterance holds no speech. */
  no_speech_prob: number;
  /** What the worker dropped from the model's output: `past_end`, `no_speech`, `annotation`, `repetition`. */
  guard: string[];
}

export interface WhisperProcessOptions {
  python: string;
  script: string;
  modelDir: string;
  /** ISO 639-1: the language the worker hears. */
  language: string;
  /** Called once when the process has ended, for whatever reason; `error` is its stderr's tail. */
  onExit: (process: WhisperProcess, error: string) => void;
}

interface InFlight {
  resolve: (reply: WorkerReply) => void;
  reject: (error: Error) => void;
}

const stderrTailBytes = 2000;

/**
 * One Python Whisper worker: a child process of one model and one language that takes one utterance at a time
 * on stdin and answers one JSON line. It knows nothing of queues or retries; the pool (whisper-local.ts)
 * decides those.
 */
export class WhisperProcess {
  /** Resolves when the model is loaded; rejects if the process ends first. */
  readonly ready: Promise<void>;
  private readonly child: ChildProcessWithoutNullStreams;
  private inFlight: InFlight | undefined;
  private stderr = '';
  private exited = false;
  private loaded = false;

  constructor(options: WhisperProcessOptions) {
    this.child = spawn(options.python, [options.script, options.modelDir, options.language], {
      // One thread each: the pool scales by processes, and the box has few cores to share with the calls.
      env: { ...process.env, THREADS: '1', OMP_NUM_THREADS: '1', PYTHONUNBUFFERED: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let markReady: () => void = () => {};
    let failReady: (error: Error) => void = () => {};
    this.ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      failReady = reject;
    });
    // A pool that never asks for readiness must not see an unhandled rejection when a worker dies.
    this.ready.catch(() => {});

    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-stderrTailBytes);
    });
    // A closed pipe while writing is reported by the exit that follows; the error itself says nothing more.
    this.child.stdin.on('error', () => {});
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      let message: Partial<WorkerReply> & { ready?: boolean; error?: string };
      try {
        message = JSON.parse(line) as typeof message;
      } catch {
        return;
      }
      if (message.ready) {
        this.loaded = true;
        markReady();
        return;
      }
      const request = this.inFlight;
      this.inFlight = undefined;
      if (!request) return;
      if (message.error !== undefined) request.reject(new Error(message.error));
      else request.resolve(message as WorkerReply);
    });
    const ended = (reason: string) => {
      if (this.exited) return;
      this.exited = true;
      const error = this.stderr.trim() || reason;
      failReady(new Error(error));
      options.onExit(this, error);
    };
    this.child.on('error', (error) => ended(error.message));
    this.child.on('exit', (code, signal) => ended(`exited with ${signal ?? `code ${code}`}`));
  }

  /** Whether the model has loaded. */
  get isReady(): boolean {
    return this.loaded;
  }

  get busy(): boolean {
    return this.inFlight !== undefined;
  }

  get alive(): boolean {
    return !this.exited;
  }

  /** Sends one utterance; the reply settles the promise. The process ending first leaves it to the pool. */
  transcribe(audio: Int16Array): Promise<WorkerReply> {
    return new Promise<WorkerReply>((resolve, reject) => {
      this.inFlight = { resolve, reject };
      const header = Buffer.alloc(4);
      header.writeUInt32LE(audio.byteLength);
      this.child.stdin.write(header);
      this.child.stdin.write(Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength));
    });
  }

  /** The request in flight, taken away so the caller can retry it elsewhere. */
  takeInFlight(): InFlight | undefined {
    const request = this.inFlight;
    this.inFlight = undefined;
    return request;
  }

  kill(): void {
    if (!this.exited) this.child.kill('SIGKILL');
  }

  /** Ends the process and waits for it to be gone. */
  async stop(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin.end();
    const timer = setTimeout(() => this.kill(), 2000);
    await gone;
    clearTimeout(timer);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }
}
