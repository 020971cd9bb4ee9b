import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { Logger } from '../../logger.ts';
import { SpeechProviderError, type SegmentOptions, type SegmentSpeechToText, type Transcript, type TranscriptionPriority } from './types.ts';
import { WhisperProcess, type WorkerReply } from './whisper-process.ts';

export interface WhisperLocalOptions {
  /** SPEECH_DIR: holds `venv/` and the models (scripts/install-speech.sh). */
  speechDir: string;
  /** The model's folder in `speechDir`; `whisper-tiny.en` by default. */
  model?: string;
  /** The language the workers hear (ISO 639-1); `en` by default. Requests in another language are refused. */
  language?: string;
  workers: number;
  /** Utterances that may wait for a worker; one more is refused at once. */
  queueLimit: number;
  logger: Logger;
  /** A worker that takes longer than this on one utterance is killed and the utterance retried once. */
  requestTimeoutMs?: number;
}

export interface WhisperLocal extends SegmentSpeechToText {
  /** Kills every worker; waiting and later requests fail. */
  close(): Promise<void>;
  /** Process ids of the live workers, for tests and diagnostics. */
  workerPids(): number[];
}

interface Job {
  audio: Int16Array;
  priority: TranscriptionPriority;
  signal: AbortSignal;
  attempts: number;
  resolve: (transcript: Transcript) => void;
  reject: (error: unknown) => void;
  onAbort: () => void;
}

const workerScript = path.join(path.dirname(fileURLToPath(import.meta.url)), 'whisper_worker.py');
const sampleRate = 16000;
// Workers that die this many times in a row before their model loads are not going to start: the waiting
// requests fail with the error instead of respawning them for ever.
const maxFailedStarts = 3;

/**
 * A Whisper model (tiny.en by default) for one language in a pool of Python worker processes
 * (whisper_worker.py), one utterance each at a time. Nothing starts until the first utterance. A worker that
 * dies is replaced as soon as there is work for it; the utterance it had is retried once on another. Finals (a
 * turn waiting for its words) wait in a bounded queue, in order; one whose signal aborts leaves it at once. A
 * provisional request (a guess at words still being said) never waits: it runs only when no final is waiting
 * and it leaves a worker idle for the next final (or the pool has one worker and it is idle), and is refused
 * at once otherwise, so guesses never stand between a caller who has stopped and their words.
 */
export function createWhisperLocal(options: WhisperLocalOptions): WhisperLocal {
  const { logger } = options;
  const model = options.model ?? 'whisper-tiny.en';
  const language = options.language ?? 'en';
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  const workers: WhisperProcess[] = [];
  const queue: Job[] = [];
  const running = new Map<WhisperProcess, { job: Job; timer: NodeJS.Timeout }>();
  let failedStarts = 0;
  let closed = false;

  function spawnWorker(): WhisperProcess {
    const worker = new WhisperProcess({
      python: path.join(options.speechDir, 'venv', 'bin', 'python'),
      script: workerScript,
      modelDir: path.join(options.speechDir, model),
      language,
      onExit: workerExited,
    });
    workers.push(worker);
    worker.ready.then(() => {
      failedStarts = 0;
    }, () => {});
    return worker;
  }

  function workerExited(worker: WhisperProcess, error: string): void {
    workers.splice(workers.indexOf(worker), 1);
    const current = running.get(worker);
    running.delete(worker);
    if (closed) return;
    // A worker that never loaded its model failed to start: that costs the utterance no attempt, but
    // enough of them in a row mean it will not start, and the waiting utterances fail with its reason.
    const failedStart = !worker.isReady;
    if (failedStart) failedStarts += 1;
    logger.warn({ pid: worker.pid, error, failedStart }, 'a Whisper worker ended');
    if (current) {
      clearTimeout(current.timer);
      worker.takeInFlight();
      if (failedStart) current.job.attempts -= 1;
      if (current.job.attempts < 2 && !current.job.signal.aborted) enqueue(current.job, true);
      else finish(current.job, undefined, new SpeechProviderError('the Whisper worker ended during the utterance', { retryable: true }));
    }
    if (failedStarts >= maxFailedStarts) {
      failedStarts = 0;
      for (const job of queue.splice(0)) {
        finish(job, undefined, new SpeechProviderError(`the Whisper worker cannot start: ${error}`, { retryable: false }));
      }
      return;
    }
    dispatch();
  }

  /** Puts a job in its place: after the finals waiting (first among them when `first`), or last. */
  function enqueue(job: Job, first = false): void {
    const finals = queue.findIndex((waiting) => waiting.priority !== 'final');
    const endOfFinals = finals < 0 ? queue.length : finals;
    if (job.priority === 'final') queue.splice(first ? 0 : endOfFinals, 0, job);
    else if (first) queue.splice(endOfFinals, 0, job);
    else queue.push(job);
  }

  function finish(job: Job, transcript: Transcript | undefined, error?: unknown): void {
    job.signal.removeEventListener('abort', job.onAbort);
    if (error !== undefined) job.reject(error);
    else if (transcript) job.resolve(transcript);
  }

  /** Hands waiting utterances to idle workers, starting workers (the first ones, or replacements) only when there is work. */
  function dispatch(): void {
    if (closed || queue.length === 0) return;
    while (workers.length < options.workers) spawnWorker();
    for (const worker of workers) {
      if (queue.length === 0) return;
      if (!worker.alive || worker.busy || running.has(worker)) continue;
      run(worker, queue.shift() as Job);
    }
  }

  function run(worker: WhisperProcess, job: Job): void {
    job.attempts += 1;
    const timer = setTimeout(() => {
      logger.warn({ pid: worker.pid, timeoutMs: requestTimeoutMs }, 'a Whisper worker took too long; killing it');
      worker.kill();
    }, requestTimeoutMs);
    running.set(worker, { job, timer });
    worker.ready
      // A request aborted while its worker was still loading is not sent at all.
      .then(() => (job.signal.aborted ? undefined : worker.transcribe(job.audio)))
      .then(
        (reply: WorkerReply | undefined) => {
          clearTimeout(timer);
          running.delete(worker);
          if (reply) logger.debug({ audioMs: reply.audio_ms, cpuMs: reply.cpu_ms, ms: reply.ms, priority: job.priority, guard: reply.guard }, 'whisper transcribed an utterance');
          if (reply && !job.signal.aborted) finish(job, { text: reply.text });
          dispatch();
        },
        (error: unknown) => {
          // The process ending is handled by workerExited, which retries the job; only a reply of
          // `{error}` from a live worker arrives here as the job's own failure.
          if (!worker.alive) return;
          clearTimeout(timer);
          running.delete(worker);
          finish(job, undefined, new SpeechProviderError('Whisper could not transcribe the utterance', { retryable: false, cause: error }));
          dispatch();
        },
      );
  }

  return {
    kind: 'segment',
    name: 'whisper-local',

    incremental: true,

    transcribe(audio: Int16Array, request: SegmentOptions): Promise<Transcript> {
      if (closed) return Promise.reject(new SpeechProviderError('the Whisper pool is closed', { retryable: false }));
      if (request.signal.aborted) return Promise.reject(request.signal.reason as Error);
      if (request.sampleRate !== sampleRate) {
        return Promise.reject(new SpeechProviderError(`Whisper takes ${sampleRate} Hz audio, got ${request.sampleRate} Hz`, { retryable: false }));
      }
      if (request.language.split('-')[0]?.toLowerCase() !== language) {
        return Promise.reject(new SpeechProviderError(`the local Whisper model (${model}) hears only ${language}, not ${request.language}`, { retryable: false }));
      }
      if (request.priority === 'provisional') {
        const idle = workers.filter((worker) => worker.alive && worker.isReady && !worker.busy && !running.has(worker)).length;
        if (queue.length > 0 || idle < Math.min(2, options.workers)) {
          return Promise.reject(new SpeechProviderError('the Whisper workers are busy: a provisional transcription is skipped', { retryable: true }));
        }
      }
      if (queue.length >= options.queueLimit) {
        return Promise.reject(new SpeechProviderError(
          `the Whisper queue is full (${options.queueLimit} utterances waiting for ${options.workers} workers); raise STT_LOCAL_WORKERS or take fewer calls`,
          { retryable: false },
        ));
      }
      return new Promise<Transcript>((resolve, reject) => {
        const job: Job = {
          audio,
          priority: request.priority ?? 'final',
          signal: request.signal,
          attempts: 0,
          resolve,
          reject,
          onAbort: () => {
            const waiting = queue.indexOf(job);
            if (waiting >= 0) queue.splice(waiting, 1);
            // A job already on a worker finishes there; its reply is dropped.
            reject(request.signal.reason as Error);
          },
        };
        request.signal.addEventListener('abort', job.onAbort, { once: true });
        enqueue(job);
        dispatch();
      });
    },

    async close(): Promise<void> {
      closed = true;
      const error = new SpeechProviderError('the Whisper pool is closed', { retryable: false });
      for (const job of queue.splice(0)) finish(job, undefined, error);
      for (const [, { job, timer }] of running) {
        clearTimeout(timer);
        finish(job, undefined, error);
      }
      running.clear();
      await Promise.all(workers.map((worker) => worker.stop()));
    },

    workerPids(): number[] {
      return workers.filter((worker) => worker.alive && worker.pid !== undefined).map((worker) => worker.pid as number);
    },
  };
}
