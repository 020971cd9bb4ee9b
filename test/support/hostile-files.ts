import zlib from 'node:zlib';
import { makeZip } from './documents.ts';

/**
 * A one-page PDF whose single Flate-compressed content stream expands to about `expandedBytes` of text
 * operators: a few hundred kilobytes on the wire, hundreds of megabytes of text for a naive extractor.
 */
export function makeExpandingPdf(expandedBytes: number): Buffer {
  // A page's worth of lines, repeated: readers drop text placed outside the page, so every line stays on it.
  const page = Buffer.from(Array.from({ length: 50 }, (_, index) => `1 0 0 1 50 ${40 + index * 14} Tm (The quick brown fox jumps over the lazy dog.) Tj\n`).join(''));
  const operators = Buffer.alloc(Math.ceil(expandedBytes / page.length) * page.length);
  for (let offset = 0; offset < operators.length; offset += page.length) page.copy(operators, offset);
  const content = zlib.deflateSync(Buffer.concat([Buffer.from('BT /F1 12 Tf\n'), operators, Buffer.from('ET\n')]));
  const objects: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
    Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>'),
    Buffer.concat([Buffer.from(`<< /Length ${content.length} /Filter /FlateDecode >>\nstream\n`), content, Buffer.from('\nendstream')]),
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(length);
    const part = Buffer.concat([Buffer.from(`${index + 1} 0 obj\n`), object, Buffer.from('\nendobj\n')]);
    parts.push(part);
    length += part.length;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('')}`;
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`));
  return Buffer.concat(parts);
}

const words = ['policy', 'refund', 'customer', 'invoice', 'delivery', 'warranty', 'account', 'support', 'contract', 'service',
  'payment', 'order', 'return', 'shipping', 'product', 'manager', 'holiday', 'schedule', 'training', 'safety'];

/**
 * A DOCX whose word/document.xml is about `xmlBytes` of paragraphs of varied words: it compresses only a few
 * times, as real text does, so it passes the decompression-bomb checks, and still holds tens of MB of XML.
 */
export function makeLargeDocx(xmlBytes: number): Buffer {
  let seed = 1;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  // Sentences drawn from a pool far larger than deflate's 32 KB window compress about as well as prose.
  const pool = Array.from({ length: 4000 }, () => `<w:p><w:r><w:t>${Array.from({ length: 40 }, () => words[next() % words.length]).join(' ')} ${next()}.</w:t></w:r></w:p>`);
  const paragraphs: string[] = [];
  let size = 0;
  while (size < xmlBytes) {
    const paragraph = pool[next() % pool.length]!;
    paragraphs.push(paragraph);
    size += paragraph.length;
  }
  const namespace = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
  return makeZip([
    { name: '[Content_Types].xml', data: Buffer.from('<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>') },
    { name: '_rels/.rels', data: Buffer.from('<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>') },
    { name: 'word/document.xml', data: Buffer.from(`<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${namespace}"><w:body>${paragraphs.join('')}</w:body></w:document>`) },
  ]);
}
