import { Worker } from 'node:worker_threads';
import { RejectedError } from '../../lib/errors.ts';
import type { ExtractionSource, Section } from './extract.ts';

/** The bounds of one document's extraction (config `ingestion`). */
export interface ExtractionLimits {
  maxCharacters: number;
  extractTimeoutMs: number;
  extractMemoryMb: number;
}

/** The one message of the extraction thread: sections within the cap, or why there are none. */
export type ExtractionOutcome =
  | { ok: true; sections: Section[] }
  | { ok: false; rejected: boolean; message: string };

const workerUrl = new URL('./extract-worker.ts', import.meta.url);

/**
 * Extracts a document's text in a thread of its own, with its own heap of `extractMemoryMb` and a
 * deadline, so a file that expands to hundreds of MB of text never holds the event loop or the memory of
 * the process that serves requests. The thread stops at the text cap and sends nothing bigger back.
 * A file over the cap, the heap or the deadline is a RejectedError with a reason the user can act on
 * (retrying would meet the same limit); `signal` stops the thread, rejecting with the signal's reason.
 */
export function extractInThread(sources: ExtractionSource[], limits: ExtractionLimits, signal?: AbortSignal): Promise<Section[]> {
  signal?.throwIfAborted();
  return new Promise<Section[]>((resolve, reject) => {
    const worker = new Worker(workerUrl, {
      workerData: { sources, maxCharacters: limits.maxCharacters },
      resourceLimits: { maxOldGenerationSizeMb: limits.extractMemoryMb },
    });
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      outcome();
    };
    const seconds = Math.round(limits.extractTimeoutMs / 1000);
    const deadline = setTimeout(() => settle(() => reject(new RejectedError(
      `Reading the document took longer than ${seconds} seconds; split it into smaller documents.`,
    ))), limits.extractTimeoutMs);
    const onAbort = () => settle(() => reject(signal?.reason));
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (outcome: ExtractionOutcome) => settle(() => {
      if (outcome.ok) resolve(outcome.sections);
      else reject(outcome.rejected ? new RejectedError(outcome.message) : new Error(outcome.message));
    }));
    worker.once('error', (error: Error & { code?: string }) => settle(() => reject(error.code === 'ERR_WORKER_OUT_OF_MEMORY'
      ? new RejectedError(`Reading the document needs more than ${limits.extractMemoryMb} MB of memory; split it into smaller documents.`)
      : error)));
    worker.once('exit', (code) => settle(() => reject(new Error(`The extraction thread ended (exit code ${code}) without an answer.`))));
  });
}
