/**
 * The body of an extraction process (isolated-extraction.ts): receives one task, extracting a document's
 * sources under the text cap or chunking its sections, and answers with one message, the result or the
 * reason there is none. Runs nowhere else.
 */
import { DomainError } from '../../lib/errors.ts';
import { chunkSections } from './chunk.ts';
import { extractSources } from './extract.ts';
import type { IsolatedOutcome, IsolatedTask } from './isolated-extraction.ts';

async function run(task: IsolatedTask): Promise<unknown> {
  return task.kind === 'extract' ? extractSources(task.sources, task.maxCharacters) : chunkSections(task.sections);
}

process.once('message', async (task: IsolatedTask) => {
  let outcome: IsolatedOutcome;
  try {
    outcome = { ok: true, result: await run(task) };
  } catch (error) {
    outcome = error instanceof DomainError
      ? { ok: false, rejected: true, message: error.message }
      : { ok: false, rejected: false, message: error instanceof Error ? error.stack ?? error.message : String(error) };
  }
  process.send?.(outcome, () => process.exit(0));
});
