/**
 * The body of an extraction process (isolated-extraction.ts): receives one document's sources, extracts them
 * under the text cap and answers with one message, the sections or the reason they could not be read.
 * Runs nowhere else.
 */
import { DomainError } from '../../lib/errors.ts';
import { extractSources, type ExtractionSource } from './extract.ts';
import type { ExtractionOutcome } from './isolated-extraction.ts';

process.once('message', async ({ sources, maxCharacters }: { sources: ExtractionSource[]; maxCharacters: number }) => {
  let outcome: ExtractionOutcome;
  try {
    outcome = { ok: true, sections: await extractSources(sources, maxCharacters) };
  } catch (error) {
    outcome = error instanceof DomainError
      ? { ok: false, rejected: true, message: error.message }
      : { ok: false, rejected: false, message: error instanceof Error ? error.stack ?? error.message : String(error) };
  }
  process.send?.(outcome, () => process.exit(0));
});
