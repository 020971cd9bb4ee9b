import zlib from 'node:zlib';
import { Document as DocxDocument, HeadingLevel, Packer, Paragraph } from 'docx';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { TestPlatform } from './platform.ts';

/** A real PDF with one page of text per entry. */
export async function makePdf(pages: string[][]): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = pdf.addPage([612, 792]);
    lines.forEach((line, index) => page.drawText(line, { x: 50, y: 740 - index * 18, size: 12, font }));
  }
  return Buffer.from(await pdf.save());
}

/**
 * A PDF whose trailer names a standard security handler whose user password is not empty: readers must
 * ask for a password, as for any encrypted PDF.
 */
export function makeEncryptedPdf(): Buffer {
  const hex = (bytes: number) => Buffer.alloc(bytes, 0x5a).toString('hex');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>',
    `<< /Filter /Standard /V 1 /R 2 /O <${hex(32)}> /U <${hex(32)}> /P -44 >>`,
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(Buffer.byteLength(body));
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = Buffer.byteLength(body);
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Encrypt 4 0 R /ID [<${hex(16)}> <${hex(16)}>] >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

/** A real DOCX with headings, paragraphs and a bulleted list. */
export async function makeDocx(): Promise<Buffer> {
  const document = new DocxDocument({
    sections: [{
      children: [
        new Paragraph({ text: 'Employee Handbook', heading: HeadingLevel.HEADING_1 }),
        new Paragraph({ text: 'Welcome to the company. This handbook explains how we work together.' }),
        new Paragraph({ text: 'Vacation policy', heading: HeadingLevel.HEADING_2 }),
        new Paragraph({ text: 'Every employee receives twenty-seven days of paid vacation per year.' }),
        new Paragraph({ text: 'Requests go to your manager two weeks ahead.', bullet: { level: 0 } }),
        new Paragraph({ text: 'Unused days carry over until March.', bullet: { level: 0 } }),
      ],
    }],
  });
  return Buffer.from(await Packer.toBuffer(document));
}

/** A ZIP archive (stored or deflated entries), for documents that are not what they claim. */
export function makeZip(entries: { name: string; data: Buffer }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const compressed = zlib.deflateRawSync(entry.data, { level: 9 });
    const name = Buffer.from(entry.name);
    const crc = zlib.crc32(entry.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(entry.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(entry.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, compressed);
    centrals.push(central, name);
    offset += local.length + name.length + compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** Posts a multipart document, the way a browser form or curl -F would. */
export async function uploadDocument(
  platform: TestPlatform,
  token: string,
  knowledgebaseId: number,
  fields: Record<string, string>,
  file?: { name: string; data: Buffer; type?: string },
) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (file) form.append('file', new Blob([new Uint8Array(file.data)], { type: file.type ?? 'application/octet-stream' }), file.name);
  const response = await fetch(`${platform.baseUrl}/api/user/knowledgebases/${knowledgebaseId}/documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    body: form,
  });
  return { status: response.status, body: await response.json() as any };
}

/** Polls a document until it leaves `processing`. */
export async function waitForDocument(platform: TestPlatform, token: string, knowledgebaseId: number, documentId: number, timeoutMs = 40_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await platform.request('GET', `/user/knowledgebases/${knowledgebaseId}/documents/${documentId}`, { token });
    if (response.status !== 200) throw new Error(`document ${documentId}: HTTP ${response.status} ${response.text}`);
    if (response.body.data.status !== 'processing') return response.body.data;
    if (Date.now() > deadline) throw new Error(`document ${documentId} still processing after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
