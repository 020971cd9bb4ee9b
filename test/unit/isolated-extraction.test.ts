import { describe, expect, it } from 'vitest';
import { RejectedError } from '../../src/lib/errors.ts';
import { chunkSections } from '../../src/knowledge/ingestion/chunk.ts';
import { chunkIsolated, extractIsolated, type ExtractionLimits } from '../../src/knowledge/ingestion/isolated-extraction.ts';
import { makePdf } from '../support/documents.ts';
import { makeExpandingPdf, makeLargeDocx } from '../support/hostile-files.ts';

const limits: ExtractionLimits = { maxCharacters: 100_000, extractTimeoutMs: 20_000, extractMemoryMb: 256 };

// Processes start and files are built on a machine shared with other work: generous timeouts, no timings asserted
// but the one that tells reading to the cap from reading to the end.
describe('extraction in a process of its own', { timeout: 60_000 }, () => {
  it('returns the sections of every source', async () => {
    const sections = await extractIsolated([
      { kind: 'pdf', data: await makePdf([['Refunds take five days.']]) },
      { kind: 'txt', data: Buffer.from('Opening hours: nine to five.') },
      { kind: 'html', data: Buffer.from('<html><head><title>Shop</title></head><body><main><h1>Shipping</h1><p>We ship worldwide.</p></main></body></html>'), url: 'https://shop.example/' },
    ], limits);
    expect(sections).toEqual([
      { text: 'Refunds take five days.', page: 1 },
      { text: 'Opening hours: nine to five.' },
      { text: 'We ship worldwide.', heading: 'Shipping', url: 'https://shop.example/' },
    ]);
  });

  it('refuses text over the cap, across sources, without reading a PDF to its end', async () => {
    const started = Date.now();
    const bomb = extractIsolated([{ kind: 'pdf', data: makeExpandingPdf(200 * 1024 * 1024) }], limits);
    await expect(bomb).rejects.toThrow(new RejectedError('The document has more than 100,000 characters of text; split it into smaller documents.'));
    // Reading all 200 MB of operators takes over a minute.
    expect(Date.now() - started).toBeLessThan(30_000);
    const pages = [{ kind: 'txt' as const, data: Buffer.from('a'.repeat(60_000)) }, { kind: 'txt' as const, data: Buffer.from('b'.repeat(60_000)) }];
    await expect(extractIsolated(pages, limits)).rejects.toThrow('The document has more than 100,000 characters of text');
  });

  it('refuses a file that needs more memory or time than allowed', async () => {
    const docx = makeLargeDocx(20 * 1024 * 1024);
    await expect(extractIsolated([{ kind: 'docx', data: docx }], { ...limits, maxCharacters: 100_000_000, extractMemoryMb: 64 }))
      .rejects.toThrow(new RejectedError('Reading the document needs more than 64 MB of memory; split it into smaller documents.'));
    await expect(extractIsolated([{ kind: 'docx', data: docx }], { ...limits, maxCharacters: 100_000_000, extractTimeoutMs: 1000 }))
      .rejects.toThrow(new RejectedError('Reading the document took longer than 1 seconds; split it into smaller documents.'));
  });

  it('chunks sections in a process of its own, as the chunker does', async () => {
    const sections = [{ text: 'a '.repeat(2_000_000), heading: 'Letters' }, { text: 'Refunds take five days.', page: 2 }];
    const chunks = await chunkIsolated(sections, limits);
    expect(chunks).toEqual(chunkSections(sections));
    expect(chunks.at(-1)).toEqual({ content: 'Refunds take five days.', tokenCount: 5, metadata: { page: 2 } });
  });

  it('stops when its signal aborts', async () => {
    const controller = new AbortController();
    const extraction = extractIsolated([{ kind: 'docx', data: makeLargeDocx(10 * 1024 * 1024) }], { ...limits, maxCharacters: 100_000_000 }, controller.signal);
    setTimeout(() => controller.abort(new Error('The document was deleted.')), 200);
    await expect(extraction).rejects.toThrow('The document was deleted.');
  });
});
