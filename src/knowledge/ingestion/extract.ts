import { Readability } from '@mozilla/readability';
import chardet from 'chardet';
import iconv from 'iconv-lite';
import mammoth from 'mammoth';
import { getDocumentProxy, getResolvedPDFJS } from 'unpdf';
import { RejectedError } from '../../lib/errors.ts';
import { parseDocument, type DomDocument, type DomNode } from './dom.ts';
import { inspectZip } from './zip.ts';

/** A stretch of text under one heading, with where it came from; chunks never straddle two. */
export interface Section {
  text: string;
  heading?: string;
  url?: string;
  page?: number;
}

// Readability's declarations name the browser's Document, which this Node project does not load.
const ReadabilityOverDom = Readability as unknown as new (document: DomDocument, options: { charThreshold: number }) => {
  parse(): { content?: string | null } | null;
};

const blockTags = new Set(['P', 'PRE', 'BLOCKQUOTE', 'TD', 'TH', 'DT', 'DD', 'FIGCAPTION', 'CAPTION', 'ADDRESS']);
const headingTags = new Set(['H1', 'H2', 'H3', 'H4', 'H5', 'H6']);
const skippedTags = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'IFRAME', 'NAV', 'FOOTER', 'FORM', 'BUTTON']);

function clean(text: string): string {
  return text.replace(/[\u00a0\t ]+/g, ' ').replace(/ *\n */g, '\n').trim();
}

/**
 * Turns (already main-content) HTML into sections split at headings, with list items kept as `- item`
 * or `1. item` lines so the structure survives into the chunks.
 */
export function htmlToSections(html: string, origin: { url?: string; title?: string } = {}): Section[] {
  const document = parseDocument(`<!doctype html><html><body>${html}</body></html>`);
  const sections: Section[] = [];
  let heading = origin.title ? clean(origin.title) : undefined;
  let blocks: string[] = [];
  const flush = () => {
    const text = blocks.join('\n\n').trim();
    if (text) sections.push({ text, ...(heading ? { heading } : {}), ...(origin.url ? { url: origin.url } : {}) });
    blocks = [];
  };
  let inline = '';
  const endInline = () => {
    const text = clean(inline);
    if (text) blocks.push(text);
    inline = '';
  };
  const walk = (node: DomNode) => {
    if (node.nodeType === 3) {
      inline += node.textContent ?? '';
      return;
    }
    if (node.nodeType !== 1) return;
    const tag = node.nodeName.toUpperCase();
    if (skippedTags.has(tag)) return;
    if (headingTags.has(tag)) {
      endInline();
      flush();
      heading = clean(node.textContent ?? '') || heading;
      return;
    }
    if (tag === 'LI') {
      endInline();
      const list = node.parentNode;
      const ordered = list?.nodeName.toUpperCase() === 'OL';
      const position = ordered && list ? Array.from(list.childNodes).filter((child) => child.nodeName.toUpperCase() === 'LI').indexOf(node) + 1 : 0;
      const marker = ordered ? `${position}. ` : '- ';
      const before = blocks.length;
      for (const child of Array.from(node.childNodes)) walk(child);
      endInline();
      // A list item's own text and nested blocks read as one line under its marker.
      const parts = blocks.splice(before);
      if (parts.length > 0) blocks.push(marker + parts.join('\n  '));
      return;
    }
    if (tag === 'BR') {
      inline += '\n';
      return;
    }
    const isBlock = blockTags.has(tag) || ['DIV', 'SECTION', 'ARTICLE', 'MAIN', 'UL', 'OL', 'TABLE', 'TR', 'HEADER', 'DL'].includes(tag);
    if (isBlock) endInline();
    for (const child of Array.from(node.childNodes)) walk(child);
    if (isBlock) endInline();
    else if (tag === 'TD' || tag === 'TH') inline += ' ';
  };
  if (document.body) walk(document.body);
  endInline();
  flush();
  // Consecutive list items belong together; a list is one block in chunking.
  return sections.map((section) => ({ ...section, text: section.text.replace(/\n\n(?=(?:- |\d+\. ))/g, '\n') }));
}

/** The main content of a web page, as Readability (Firefox's reader view) finds it. */
export function extractHtml(html: string, url: string): Section[] {
  const document = parseDocument(html);
  const title = clean(document.querySelector('title')?.textContent ?? '');
  let content: string | undefined;
  try {
    const article = new ReadabilityOverDom(document, { charThreshold: 100 }).parse();
    content = article?.content ?? undefined;
  } catch {
    content = undefined;
  }
  // Readability gives up on short pages; their body, without chrome, is then the content.
  const sections = htmlToSections(content ?? parseDocument(html).body?.innerHTML ?? '', { url, title });
  return sections;
}

const pdfMagic = Buffer.from('%PDF-');

type PDFDocumentProxy = Awaited<ReturnType<typeof getDocumentProxy>>;
type PDFPageProxy = Awaited<ReturnType<PDFDocumentProxy['getPage']>>;
type TextContent = Awaited<ReturnType<PDFPageProxy['getTextContent']>>;

/** A page's text as pdf.js streams it: items in batches, so reading can stop anywhere. */
async function readPageText(page: PDFPageProxy, budget: number): Promise<string> {
  const reader = (page.streamTextContent() as ReadableStream<TextContent>).getReader();
  const parts: string[] = [];
  let length = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return parts.join('');
    for (const item of value.items) {
      if (!('str' in item)) continue;
      const part = item.str + (item.hasEOL ? '\n' : '');
      parts.push(part);
      length += part.length;
    }
    if (length > budget) {
      await reader.cancel(new Error('The text cap is reached.'));
      return parts.join('');
    }
  }
}

export interface PdfOptions {
  /**
   * Reading stops once the text passes this many characters, so one content stream that expands to
   * hundreds of MB is never read whole; the result then holds more than this, which the caller refuses.
   */
  maxCharacters?: number;
}

/**
 * The text of each page. Like the other file extractors, it throws a RejectedError, whose message the user
 * sees on the failed document, when the file cannot be processed for a reason they can act on.
 */
export async function extractPdf(data: Buffer, options: PdfOptions = {}): Promise<Section[]> {
  if (!data.subarray(0, 1024).includes(pdfMagic)) throw new RejectedError('The file is not a PDF.');
  const budget = options.maxCharacters ?? Infinity;
  const pages: string[] = [];
  let pdf: PDFDocumentProxy | undefined;
  try {
    pdf = await getDocumentProxy(new Uint8Array(data), { verbosity: 0 });
    if (pdf.numPages > 5000) throw new RejectedError(`The PDF has ${pdf.numPages} pages; at most 5000 are processed.`);
    let length = 0;
    for (let number = 1; number <= pdf.numPages && length <= budget; number++) {
      const text = await readPageText(await pdf.getPage(number), budget - length);
      pages.push(text);
      length += text.length;
    }
  } catch (error) {
    if (error instanceof RejectedError) throw error;
    const { PasswordException } = await getResolvedPDFJS();
    if (error instanceof PasswordException) throw new RejectedError('The PDF is encrypted with a password and cannot be read.');
    throw new RejectedError(`The PDF could not be read: ${(error as Error).message}`);
  } finally {
    // Stops pdf.js's parser, which goes on through a cancelled page otherwise.
    await pdf?.loadingTask.destroy();
  }
  return pages.map((text, index) => ({ text: clean(text), page: index + 1 })).filter((page) => page.text !== '');
}

export async function extractDocx(data: Buffer): Promise<Section[]> {
  // Refuses decompression bombs and non-zip files before the DOCX library inflates anything.
  const zip = inspectZip(data);
  if (!zip.ok) throw new RejectedError(zip.reason);
  if (!zip.names.includes('word/document.xml')) throw new RejectedError('The file is not a Word document (no word/document.xml).');
  let html: string;
  try {
    html = (await mammoth.convertToHtml({ buffer: data })).value;
  } catch (error) {
    throw new RejectedError(`The Word document could not be read: ${(error as Error).message}`);
  }
  return htmlToSections(html);
}

/** Decodes text whatever its charset: a BOM wins, then valid UTF-8, then statistical detection. */
export function decodeText(data: Buffer, declared?: string): string {
  if (data.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))) return data.subarray(3).toString('utf8');
  if (data[0] === 0xff && data[1] === 0xfe) return iconv.decode(data.subarray(2), 'utf-16le');
  if (data[0] === 0xfe && data[1] === 0xff) return iconv.decode(data.subarray(2), 'utf-16be');
  if (declared && iconv.encodingExists(declared)) return iconv.decode(data, declared);
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  try {
    return utf8.decode(data);
  } catch {
    const detected = chardet.detect(data.subarray(0, 64 * 1024));
    return iconv.decode(data, detected && iconv.encodingExists(detected) ? detected : 'windows-1252');
  }
}

export function extractTxt(data: Buffer): Section[] {
  const text = decodeText(data);
  // Text files do not hold NUL characters; many of them mean a binary file sent as text.
  const nulls = text.split('\u0000').length - 1;
  if (nulls > Math.max(8, text.length / 1000)) throw new RejectedError('The file is not a text file.');
  const normalized = text.replace(/\r\n?/g, '\n').replaceAll('\u0000', '');
  return [{ text: normalized.split(/\n{2,}/).map(clean).filter(Boolean).join('\n\n') }].filter((section) => section.text !== '');
}

/** One file or fetched page of a document, as ingestion stores it. */
export interface ExtractionSource {
  kind: 'html' | 'pdf' | 'docx' | 'txt';
  data: Uint8Array;
  url?: string;
}

/** What a document over the text cap fails with. */
export function tooMuchText(maxCharacters: number): RejectedError {
  return new RejectedError(`The document has more than ${maxCharacters.toLocaleString('en-US')} characters of text; split it into smaller documents.`);
}

/**
 * The sections of all of a document's sources, refused (tooMuchText) once their text passes `maxCharacters`:
 * a PDF stops being read there, other formats are measured once read.
 */
export async function extractSources(sources: ExtractionSource[], maxCharacters: number): Promise<Section[]> {
  const sections: Section[] = [];
  let characters = 0;
  for (const source of sources) {
    const data = Buffer.from(source.data.buffer, source.data.byteOffset, source.data.byteLength);
    const extracted = source.kind === 'html' ? extractHtml(data.toString('utf8'), source.url ?? '')
      : source.kind === 'pdf' ? await extractPdf(data, { maxCharacters: maxCharacters - characters })
        : source.kind === 'docx' ? await extractDocx(data)
          : extractTxt(data);
    characters += extracted.reduce((sum, section) => sum + section.text.length, 0);
    if (characters > maxCharacters) throw tooMuchText(maxCharacters);
    sections.push(...extracted);
  }
  return sections;
}
