/**
 * The body of the extraction thread (extract-thread.ts): extracts one document's sources under the text cap
 * and posts one message, the sections or the reason they could not be read. Runs nowhere else.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { DomainError } from '../../lib/errors.ts';
import { extractSources, type ExtractionSource } from './extract.ts';
import type { ExtractionOutcome } from './extract-thread.ts';

const { sources, maxCharacters } = workerData as { sources: ExtractionSource[]; maxCharacters: number };

let outcome: ExtractionOutcome;
try {
  outcome = { ok: true, sections: await extractSources(sources, maxCharacters) };
} catch (error) {
  outcome = error instanceof DomainError
    ? { ok: false, rejected: true, message: error.message }
    : { ok: false, rejected: false, message: error instanceof Error ? error.stack ?? error.message : String(error) };
}
parentPort?.postMessage(outcome);
