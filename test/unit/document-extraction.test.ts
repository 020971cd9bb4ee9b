import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { chunkSections, countTokens } from '../../src/knowledge/ingestion/chunk.ts';
import { sameSiteLinks } from '../../src/knowledge/ingestion/crawl.ts';
import { decodeText, extractDocx, extractHtml, extractPdf, extractTxt, htmlToSections } from '../../src/knowledge/ingestion/extract.ts';
import { inspectZip } from '../../src/knowledge/ingestion/zip.ts';
import { makeDocx, makeEncryptedPdf, makePdf, makeZip } from '../support/documents.ts';

describe('HTML extraction', () => {
  it('keeps the main content as text split at headings, without navigation, scripts or footer', () => {
    const prose = Array.from({ length: 5 }, (_, i) => `<p>Sentence ${i} explains the refund policy of the shop in plain words for every customer.</p>`).join('');
    const html = `<html><head><title>Shop</title><script>alert(1)</script></head><body>
      <nav><a href="/">Home</a><a href="/x">Menu entry</a></nav>
      <article><h1>Refunds</h1>${prose}<h2>Exceptions</h2><ul><li>Gift cards</li><li>Sale items</li></ul>${prose}</article>
      <footer>Footer boilerplate</footer></body></html>`;
    const sections = extractHtml(html, 'https://shop.example/refunds');
    const text = sections.map((section) => section.text).join('\n');
    expect(text).toContain('refund policy');
    expect(text).not.toContain('alert(1)');
    expect(text).not.toContain('Menu entry');
    expect(text).not.toContain('Footer boilerplate');
    const exceptions = sections.find((section) => section.heading === 'Exceptions');
    expect(exceptions?.text).toContain('- Gift cards\n- Sale items');
    expect(sections.every((section) => section.url === 'https://shop.example/refunds')).toBe(true);
  });

  it('numbers ordered list items', () => {
    const [section] = htmlToSections('<h2>Steps</h2><ol><li>Open</li><li>Close</li></ol>');
    expect(section).toEqual({ heading: 'Steps', text: '1. Open\n2. Close' });
  });

  it('finds same-site links only, resolved and without fragments or non-page files', () => {
    const links = sameSiteLinks(
      '<a href="/a#top">a</a><a href="b">b</a><a href="https://other.example/c">c</a><a href="/file.pdf">pdf</a><a href="mailto:x@y">m</a>',
      'https://site.example/dir/page',
    );
    expect(links).toEqual(['https://site.example/a', 'https://site.example/dir/b']);
  });
});

describe('file extraction', () => {
  it('reads a PDF page by page', async () => {
    const sections = await extractPdf(await makePdf([['First page about apples.'], ['Second page about oranges.']]));
    expect(sections).toEqual([
      { text: 'First page about apples.', page: 1 },
      { text: 'Second page about oranges.', page: 2 },
    ]);
  });

  it('refuses an encrypted PDF and a damaged one with a reason', async () => {
    await expect(extractPdf(makeEncryptedPdf())).rejects.toThrow('The PDF is encrypted with a password and cannot be read.');
    const damaged = (await makePdf([['Hello']])).subarray(0, 200);
    await expect(extractPdf(damaged)).rejects.toThrow(/The PDF could not be read/);
  });

  it('reads a DOCX with its headings and lists', async () => {
    const sections = await extractDocx(await makeDocx());
    const vacation = sections.find((section) => section.heading === 'Vacation policy');
    expect(vacation?.text).toContain('twenty-seven days of paid vacation');
    expect(vacation?.text).toContain('- Requests go to your manager two weeks ahead.\n- Unused days carry over until March.');
    expect(sections.find((section) => section.heading === 'Employee Handbook')?.text).toContain('Welcome to the company');
  });

  it('refuses a decompression bomb before unpacking it, and a ZIP that is not a Word document', async () => {
    const bomb = makeZip([{ name: 'word/document.xml', data: Buffer.alloc(30 * 1024 * 1024, 0x20) }]);
    expect(bomb.length).toBeLessThan(100 * 1024);
    await expect(extractDocx(bomb)).rejects.toThrow(/decompression bomb/);
    await expect(extractDocx(makeZip([{ name: 'hello.txt', data: Buffer.from('hi') }]))).rejects.toThrow(/not a Word document/);
    await expect(extractDocx(Buffer.from('plain text, not a zip'))).rejects.toThrow(/not a ZIP archive/);
  });

  it('catches an archive entry that inflates past its declared size', () => {
    const zip = makeZip([{ name: 'word/document.xml', data: Buffer.alloc(4096, 0x41) }]);
    // Declare 100 bytes where 4096 are packed, in the central directory.
    const central = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    zip.writeUInt32LE(100, central + 24);
    expect(inspectZip(zip)).toEqual({ ok: false, reason: expect.stringMatching(/expands past its declared size/) });
  });

  it('decodes text files in UTF-8, UTF-16 with a BOM, and legacy 8-bit charsets', () => {
    const text = 'Crème brûlée à la française, déjà vu, naïve façade, über große Straße.';
    expect(decodeText(Buffer.from(text, 'utf8'))).toBe(text);
    expect(decodeText(Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(text, 'utf-16le')]))).toBe(text);
    expect(decodeText(iconv.encode(text, 'windows-1252'))).toBe(text);
  });

  it('refuses a binary file sent as text', () => {
    expect(() => extractTxt(Buffer.alloc(2000, 0))).toThrow('The file is not a text file.');
  });
});

describe('chunking', () => {
  it('packs paragraphs up to the target with overlap, never across sections, keeping the heading and source', () => {
    const paragraph = (n: number) => `Paragraph ${n} ` + 'word '.repeat(120).trim() + '.';
    const sections = [
      { heading: 'Intro', url: 'https://x.example/', text: Array.from({ length: 12 }, (_, i) => paragraph(i)).join('\n\n') },
      { heading: 'Other', page: 3, text: 'A short section.' },
    ];
    const chunks = chunkSections(sections, { targetTokens: 500, maxTokens: 800, overlapTokens: 80 });
    const intro = chunks.filter((chunk) => chunk.metadata.heading === 'Intro');
    expect(intro.length).toBeGreaterThanOrEqual(3);
    for (const chunk of intro) {
      expect(chunk.tokenCount).toBeLessThanOrEqual(800);
      expect(chunk.content.startsWith('Intro\n\n')).toBe(true);
      expect(chunk.metadata).toEqual({ url: 'https://x.example/', heading: 'Intro' });
    }
    expect(intro[0]!.tokenCount).toBeGreaterThanOrEqual(400);
    // The end of one chunk opens the next.
    const endOfFirst = intro[0]!.content.split(/\s+/).slice(-10).join(' ');
    expect(intro[1]!.content).toContain(endOfFirst);
    expect(chunks.at(-1)).toEqual({ content: 'Other\n\nA short section.', tokenCount: countTokens('Other\n\nA short section.'), metadata: { page: 3, heading: 'Other' } });
  });

  it('splits one enormous paragraph by sentences and words', () => {
    const chunks = chunkSections([{ text: 'word '.repeat(5000) }]);
    expect(chunks.length).toBeGreaterThan(6);
    expect(Math.max(...chunks.map((chunk) => chunk.tokenCount))).toBeLessThanOrEqual(800);
  });

  it('splits a text at the cap without sentences in linear time', () => {
    // 5 MB of one-letter words: recounting each growing piece took 21 s; running sums take under a second.
    const started = performance.now();
    const chunks = chunkSections([{ text: 'a '.repeat(2_500_000) }]);
    expect(performance.now() - started).toBeLessThan(8000);
    expect(chunks.length).toBeGreaterThan(3000);
    expect(Math.max(...chunks.map((chunk) => chunk.tokenCount))).toBeLessThanOrEqual(800);
  });
});
