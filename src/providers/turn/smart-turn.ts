import { access } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../../logger.ts';
import { SpeechProviderError } from '../stt/types.ts';
import type { FromTurnThread, ToTurnThread, TurnThreadData } from './thread-protocol.ts';
import type { TurnDetector } from './types.ts';

const entry = new URL('./smart-turn-thread.ts', import.meta.url);

/** The Smart Turn model's file in SPEECH_DIR, as scripts/install-speech.sh puts it. */
export const SMART_TURN_MODEL = 'smart-turn/smart-turn-v3.2-cpu.onnx';

export interface SmartTurnOptions {
  modelPath: string;
  logger: Logger;
  /** The most pauses scored in one run of the model; 8 by default. */
  maxBatch?: number;
}

interface Pending {
  resolve: (probability: number) => void;
  reject: (error: Error) => void;
  signal: AbortSignal;
  onAbort: () => void;
}

/**
 * Smart Turn v3.2 (Pipecat's turn model, BSD-2-Clause, docs/decisions.md) on a worker thread of its own, started
 * on the first request: the media role's event loop only posts the caller's audio and reads a probability.
 * A thread that dies is replaced on the next request; the requests it had fail (the engine then decides by
 * silence and words alone).
 */
export function createSmartTurn(options: SmartTurnOptions): TurnDetector {
  const pending = new Map<number, Pending>();
  let worker: Worker | undefined;
  let installed: Promise<void> | undefined;
  let nextId = 1;
  let closed = false;

  const fail = (id: number, error: Error) => {
    const request = pending.get(id);
    if (!request) return;
    pending.delete(id);
    request.signal.removeEventListener('abort', request.onAbort);
    request.reject(error);
  };

  function started(): Worker {
    if (worker) return worker;
    const data: TurnThreadData = { modelPath: options.modelPath, maxBatch: options.maxBatch ?? 8 };
    const thread = new Worker(entry, { workerData: data });
    thread.unref();
    thread.on('message', (message: FromTurnThread) => {
      if (message.type === 'failed') return fail(message.id, new SpeechProviderError(message.message, { retryable: false }));
      const request = pending.get(message.id);
      if (!request) return;
      pending.delete(message.id);
      request.signal.removeEventListener('abort', request.onAbort);
      request.resolve(message.probability);
    });
    thread.on('error', (error) => options.logger.error({ err: error }, 'the turn model thread failed'));
    thread.on('exit', (code) => {
      if (worker !== thread) return;
      worker = undefined;
      if (!closed) options.logger.warn({ code, waiting: pending.size }, 'the turn model thread stopped');
      for (const id of [...pending.keys()]) fail(id, new SpeechProviderError('the turn model thread stopped', { retryable: true }));
    });
    worker = thread;
    return thread;
  }

  const post = (message: ToTurnThread, transfer: ArrayBuffer[] = []) => started().postMessage(message, transfer);

  /** Whether the model is installed: checked once, so a missing file is one clear error, not a thread's. */
  const checkInstalled = () => (installed ??= access(options.modelPath).catch((error: unknown) => {
    throw new SpeechProviderError(`the turn model is not installed at ${options.modelPath} (run bash scripts/install-speech.sh)`, { retryable: false, cause: error });
  }));

  return {
    name: 'smart-turn',
    async score(audio, signal) {
      if (closed) throw new SpeechProviderError('the turn model is closed', { retryable: false });
      signal.throwIfAborted();
      await checkInstalled();
      signal.throwIfAborted();
      const id = nextId++;
      return new Promise<number>((resolve, reject) => {
        const onAbort = () => {
          if (!pending.delete(id)) return;
          post({ type: 'cancel', id });
          reject(signal.reason as Error);
        };
        pending.set(id, { resolve, reject, signal, onAbort });
        signal.addEventListener('abort', onAbort, { once: true });
        const copy = audio.slice(-8 * 16000);
        post({ type: 'score', id, audio: copy }, [copy.buffer]);
      });
    },
    async warmUp() {
      await this.score(new Int16Array(16000), new AbortController().signal);
    },
    async close() {
      closed = true;
      const thread = worker;
      worker = undefined;
      for (const id of [...pending.keys()]) fail(id, new SpeechProviderError('the turn model is closed', { retryable: false }));
      await thread?.terminate();
    },
  };
}
