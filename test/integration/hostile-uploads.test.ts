import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadDocument, waitForDocument } from '../support/documents.ts';
import { makeExpandingPdf, makeLargeDocx } from '../support/hostile-files.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser } from '../support/users.ts';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({
    worker: true,
    // Caps a few times smaller than the defaults, so files sized for a quick test pass them as the did;
    // the bystander asks about 80 times a second for as long as a loaded machine takes, beyond the default limit.
    env: { INGEST_MAX_CHARACTERS: '1000000', INGEST_EXTRACT_MEMORY_MB: '256', INGEST_EXTRACT_TIMEOUT: '60s', INGEST_MAX_CHUNKS: '50', RATE_LIMIT_PER_MINUTE: '1000000' },
  });
});

afterAll(async () => {
  await platform?.close();
});

describe('hostile uploads', () => {
  it('fail alone, with a reason, while another user keeps being answered', async () => {
    // About 20 million characters of text from 180 KB of PDF, and 12 MB of XML in a 600 KB DOCX (ratio about 20),
    // built first: building blocks this process, and an HTTP connection idle meanwhile may be closed under it.
    const pdf = makeExpandingPdf(30 * 1024 * 1024);
    const docx = makeLargeDocx(12 * 1024 * 1024);
    const attacker = await createTestUser(platform.database.knex);
    const bystander = await createTestUser(platform.database.knex);
    const created = await platform.request('POST', '/user/knowledgebases', { token: attacker.token, body: { name: 'Bombs' } });
    const kb = created.body.data.id as number;

    const memoryBefore = process.memoryUsage().rss;
    let memoryPeak = memoryBefore;
    const sampler = setInterval(() => {
      memoryPeak = Math.max(memoryPeak, process.memoryUsage().rss);
    }, 50);
    let uploading = true;
    const answers: { path: string; status: number; ms: number }[] = [];
    const bystanderRequests = (async () => {
      while (uploading) {
        for (const [route, token] of [['/health', undefined], ['/user/me', bystander.token], ['/user/knowledgebases', bystander.token]] as const) {
          const started = performance.now();
          const response = await platform.request('GET', route, token ? { token } : {});
          answers.push({ path: route, status: response.status, ms: performance.now() - started });
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();

    try {
      const uploads = await Promise.all([
        uploadDocument(platform, attacker.token, kb, { name: 'Expanding PDF', type: 'pdf' }, { name: 'bomb.pdf', data: pdf, type: 'application/pdf' }),
        uploadDocument(platform, attacker.token, kb, { name: 'Large DOCX', type: 'docx' }, { name: 'large.docx', data: docx }),
      ]);
      expect(uploads.map((upload) => upload.status)).toEqual([201, 201]);
      const [pdfDocument, docxDocument] = await Promise.all(uploads.map((upload) => waitForDocument(platform, attacker.token, kb, upload.body.data.id, 60_000)));
      expect(pdfDocument).toMatchObject({
        status: 'failed',
        error: 'The document has more than 1,000,000 characters of text; split it into smaller documents.',
      });
      expect(docxDocument.status).toBe('failed');
      expect(docxDocument.error).toMatch(/^(The document has more than 1,000,000 characters of text|Reading the document needs more than 256 MB of memory); split it into smaller documents\.$/);
    } finally {
      uploading = false;
      await bystanderRequests;
      clearInterval(sampler);
    }

    expect(answers.length).toBeGreaterThan(10);
    expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);
    const worst = answers.reduce((slowest, answer) => (answer.ms > slowest.ms ? answer : slowest));
    console.log(`hostile uploads: ${answers.length} requests of another user, worst ${worst.ms.toFixed(0)} ms (GET ${worst.path}), `
      + `process memory ${(memoryBefore / 1024 / 1024).toFixed(0)} MB before, peak ${(memoryPeak / 1024 / 1024).toFixed(0)} MB (PDF ${(pdf.length / 1024).toFixed(0)} KB, DOCX ${(docx.length / 1024).toFixed(0)} KB)`);
  }, 90_000);

  it('fail a document that makes more chunks than the cap, keeping none of them', async () => {
    const user = await createTestUser(platform.database.knex);
    const created = await platform.request('POST', '/user/knowledgebases', { token: user.token, body: { name: 'Long' } });
    const kb = created.body.data.id as number;
    // 60 paragraphs of about 600 tokens: a chunk each, well under the text cap.
    const text = Array.from({ length: 60 }, (_, index) => `Paragraph ${index}. ${'The warranty covers every part of the product. '.repeat(70)}`).join('\n\n');
    const upload = await uploadDocument(platform, user.token, kb, { name: 'Long notes', type: 'txt' }, { name: 'notes.txt', data: Buffer.from(text) });
    expect(upload.status).toBe(201);
    const document = await waitForDocument(platform, user.token, kb, upload.body.data.id);
    expect(document.status).toBe('failed');
    expect(document.error).toMatch(/^The document makes \d+ chunks of text; at most 50 are stored\. Split it into smaller documents\.$/);
    expect(await platform.database.knex('document_chunks').where({ documentId: document.id }).count({ count: '*' }).first()).toEqual({ count: 0 });
  });
});
