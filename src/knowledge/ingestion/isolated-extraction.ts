import { fork } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { RejectedError } from '../../lib/errors.ts';
import type { Chunk } from './chunk.ts';
import type { ExtractionSource, Section } from './extract.ts';

/** The bounds of each step of one document's extraction (config `ingestion`). */
export interface ExtractionLimits {
  maxCharacters: number;
  extractTimeoutMs: number;
  extractMemoryMb: number;
}

/** What an extraction process is asked to do. */
export type IsolatedTask =
  | { kind: 'extract'; sources: ExtractionSource[]; maxCharacters: number }
  | { kind: 'chunk'; sections: Section[] };

/** The one message of an extraction process: the task's result, or why there is none. */
export type IsolatedOutcome =
  | { ok: true; result: unknown }
  | { ok: false; rejected: boolean; message: string };

const entry = fileURLToPath(new URL('./extraction-process.ts', import.meta.url));

// Each extraction may use its whole heap; two at a time keep a burst of uploads from multiplying that.
const maxConcurrent = 2;
let running = 0;
const waiting: (() => void)[] = [];

/** Waits for one of the `maxConcurrent` places; the function it gives frees it, or hands it to the next waiter. */
async function slot(): Promise<() => void> {
  if (running < maxConcurrent) running++;
  else await new Promise<void>((resolve) => waiting.push(resolve));
  return () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
}

/**
 * Extracts a document's text in a process of its own, with a heap of `extractMemoryMb` and a deadline, so a
 * file that expands to hundreds of MB never holds the event loop or the memory of the process that serves
 * requests (a process, not a thread: its memory goes back to the system when it ends). It stops at the text
 * cap and sends nothing bigger back. A file over the cap, the heap or the deadline is a RejectedError with a
 * reason the user can act on, since retrying would meet the same limit; `signal` kills the process and
 * rejects with the signal's reason.
 */
export async function extractIsolated(sources: ExtractionSource[], limits: ExtractionLimits, signal?: AbortSignal): Promise<Section[]> {
  return await runIsolated({ kind: 'extract', sources, maxCharacters: limits.maxCharacters }, 'Reading the document', limits, signal) as Section[];
}

/** Cuts sections into chunks the same way, under the same limits: on the text cap's worth, seconds of CPU. */
export async function chunkIsolated(sections: Section[], limits: ExtractionLimits, signal?: AbortSignal): Promise<Chunk[]> {
  return await runIsolated({ kind: 'chunk', sections }, 'Chunking the document', limits, signal) as Chunk[];
}

async function runIsolated(task: IsolatedTask, what: string, limits: ExtractionLimits, signal: AbortSignal | undefined): Promise<unknown> {
  signal?.throwIfAborted();
  const release = await slot();
  try {
    signal?.throwIfAborted();
    return await runChild(task, what, limits, signal);
  } finally {
    release();
  }
}

function runChild(task: IsolatedTask, what: string, limits: ExtractionLimits, signal: AbortSignal | undefined): Promise<unknown> {
  return new Promise<unknown>((resolve, reject) => {
    const child = fork(entry, {
      execArgv: [`--max-old-space-size=${limits.extractMemoryMb}`],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      // The parsers read untrusted files: none of the server's secrets (APP_KEY, DATABASE_URL) in reach.
      env: {},
    });
    // Below the server in the CPU queue: on a small machine, requests go first and extraction takes longer.
    if (child.pid !== undefined) os.setPriority(child.pid, 10);
    // The last words of a crash, for an error that is not one of the limits.
    let stderr = '';
    child.stderr?.on('data', (data: Buffer) => {
      stderr = (stderr + data.toString('utf8')).slice(-4000);
    });
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      signal?.removeEventListener('abort', onAbort);
      child.kill('SIGKILL');
      outcome();
    };
    const seconds = Math.round(limits.extractTimeoutMs / 1000);
    const deadline = setTimeout(() => settle(() => reject(new RejectedError(
      `${what} took longer than ${seconds} seconds; split it into smaller documents.`,
    ))), limits.extractTimeoutMs);
    const onAbort = () => settle(() => reject(signal?.reason as Error));
    signal?.addEventListener('abort', onAbort, { once: true });
    child.once('message', (outcome: IsolatedOutcome) => settle(() => {
      if (outcome.ok) resolve(outcome.result);
      else reject(outcome.rejected ? new RejectedError(outcome.message) : new Error(outcome.message));
    }));
    child.once('error', (error) => settle(() => reject(error)));
    child.once('exit', (code, exitSignal) => settle(() => reject(/heap limit|out of memory/i.test(stderr)
      ? new RejectedError(`${what} needs more than ${limits.extractMemoryMb} MB of memory; split it into smaller documents.`)
      : new Error(`The extraction process ended (${exitSignal ?? `exit code ${code}`}) without an answer: ${stderr.trim() || 'no output'}`))));
    child.send(task);
  });
}
