import fs from 'node:fs';
import path from 'node:path';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowIds } from '../../src/temporal/names.ts';
import { makeDocx, makeEncryptedPdf, makePdf, makeZip, uploadDocument, waitForDocument } from '../support/documents.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser, type TestUser } from '../support/users.ts';
import { startPrivateServer, startTestWebsite, type TestWebsite } from '../fakes/website.ts';

let platform: TestPlatform;
let site: TestWebsite;
let privateServer: Awaited<ReturnType<typeof startPrivateServer>>;
let storageDir: string;

beforeAll(async () => {
  privateServer = await startPrivateServer();
  site = await startTestWebsite({ privateTarget: privateServer.url, hugeBytes: 2 * 1024 * 1024 });
  platform = await startTestPlatform({
    worker: true,
    env: {
      // Only the test website's address: the private server on 127.0.0.2 stays refused.
      FETCH_ALLOW_HOSTS: '127.0.0.1',
      FETCH_MAX_BYTES: '1mb',
      FETCH_TIMEOUT: '10s',
    },
  });
  storageDir = platform.config.storage.dir;
});

afterAll(async () => {
  await platform?.close();
  await site?.close();
  await privateServer?.close();
});

async function newKnowledgebase(user: TestUser, name = 'Docs') {
  const response = await platform.request('POST', '/user/knowledgebases', { token: user.token, body: { name } });
  expect(response.status).toBe(201);
  return response.body.data.id as number;
}

async function search(user: TestUser, kb: number, query: string) {
  const response = await platform.request('POST', `/user/knowledgebases/${kb}/search`, { token: user.token, body: { query, top_k: 10 } });
  expect(response.status).toBe(200);
  return response.body as { mode: string; data: { text: string; document_id: number; metadata: Record<string, unknown> }[] };
}

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

describe('website documents', () => {
  it('crawls same-site links breadth-first, skips what it must, and makes the pages searchable', async () => {
    const user = await createTestUser(platform.database.knex);
    const kb = await newKnowledgebase(user);
    const created = await platform.request('POST', `/user/knowledgebases/${kb}/documents`, {
      token: user.token,
      body: { name: 'Acme site', description: 'Public pages', type: 'website', url: `${site.url}/`, relative_links_limit: 10 },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      message: 'Document created successfully. Processing will begin shortly.',
      data: {
        id: expect.any(Number),
        name: 'Acme site',
        description: 'Public pages',
        type: 'website',
        type_label: 'Website',
        status: 'processing',
        status_label: 'Processing',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
      },
    });
    const processing = await platform.request('GET', `/user/knowledgebases/${kb}`, { token: user.token });
    expect(processing.body.data.status).toBe('processing');

    const document = await waitForDocument(platform, user.token, kb, created.body.data.id);
    expect(document).toMatchObject({ status: 'active', status_label: 'Active', error: null });

    // Followed: the linked pages. Not followed: robots.txt's disallowed page, the off-site link, the PDF link.
    for (const pathname of ['/', '/about', '/pricing', '/docs/guide', '/robots.txt']) expect(site.hits.get(pathname)).toBeGreaterThan(0);
    expect(site.hits.get('/private-area')).toBeUndefined();
    expect(site.hits.get('/brochure.pdf')).toBeUndefined();
    // The redirect was followed to a private address and refused there: the private server saw nothing.
    expect(site.hits.get('/redirect-private')).toBeGreaterThan(0);
    expect(privateServer.hits()).toBe(0);

    const pricing = await search(user, kb, 'how much is a dedicated launch');
    expect(pricing.mode).toBe('full_text');
    expect(pricing.data[0]?.text).toContain('Dedicated launch: 7 million dollars');
    expect(pricing.data[0]?.metadata).toMatchObject({ url: `${site.url}/pricing`, heading: 'Launch packages' });
    expect((await search(user, kb, 'who founded Acme')).data.some((hit) => hit.text.includes('Wile E. Coyote'))).toBe(true);
    expect((await search(user, kb, 'vault code marmalade')).data).toEqual([]);
    expect((await search(user, kb, 'internal secrets admin')).data).toEqual([]);
    // Main content only: the footer is not in any chunk, and the huge page was cut off by the size cap.
    const chunks = await platform.database.knex('document_chunks').where({ documentId: document.id }).select('content');
    expect(chunks.some((chunk: { content: string }) => chunk.content.includes('Footer text'))).toBe(false);
    expect(chunks.some((chunk: { content: string }) => chunk.content.includes('archive entry'))).toBe(false);
    expect(chunks.some((chunk: { content: string }) => chunk.content.includes('"secret"'))).toBe(false);
    // Work files are gone once the document is active.
    expect(filesUnder(path.join(storageDir, 'documents', String(document.id)))).toEqual([]);

    const kbAfter = await platform.request('GET', `/user/knowledgebases/${kb}`, { token: user.token });
    expect(kbAfter.body.data).toMatchObject({ status: 'active', status_label: 'Active', documents_count: 1 });
  });

  it('follows no more links than relative_links_limit', async () => {
    const user = await createTestUser(platform.database.knex);
    const kb = await newKnowledgebase(user);
    const before = site.hits.get('/about') ?? 0;
    const created = await platform.request('POST', `/user/knowledgebases/${kb}/documents`, {
      token: user.token,
      body: { name: 'One link', type: 'website', links: [{ link: `${site.url}/` }], relative_links_limit: 1 },
    });
    expect(created.status).toBe(201);
    expect(await waitForDocument(platform, user.token, kb, created.body.data.id)).toMatchObject({ status: 'active' });
    // The first link of the home page is /about; the second, /pricing, is over the limit.
    expect(site.hits.get('/about')).toBe(before + 1);
    const hits = await search(user, kb, 'dedicated launch million dollars');
    expect(hits.data.some((hit) => hit.text.includes('Dedicated launch'))).toBe(false);
  });

  it('fails with the reason when the start page is refused or has no text', async () => {
    const user = await createTestUser(platform.database.knex);
    const kb = await newKnowledgebase(user);
    const redirect = await platform.request('POST', `/user/knowledgebases/${kb}/documents`, {
      token: user.token, body: { name: 'Private', type: 'website', url: `${site.url}/redirect-private` },
    });
    const failed = await waitForDocument(platform, user.token, kb, redirect.body.data.id);
    expect(failed.status).toBe('failed');
    expect(failed.status_label).toBe('Failed');
    expect(failed.error).toMatch(/127\.0\.0\.2 is a private or reserved address and may not be fetched/);
    expect(privateServer.hits()).toBe(0);

    const empty = await platform.request('POST', `/user/knowledgebases/${kb}/documents`, {
      token: user.token, body: { name: 'Empty', type: 'website', url: `${site.url}/empty` },
    });
    expect(await waitForDocument(platform, user.token, kb, empty.body.data.id)).toMatchObject({ status: 'failed', error: 'No text could be extracted from the pages.' });

    const huge = await platform.request('POST', `/user/knowledgebases/${kb}/documents`, {
      token: user.token, body: { name: 'Huge', type: 'website', url: `${site.url}/huge` },
    });
    expect((await waitForDocument(platform, user.token, kb, huge.body.data.id)).error).toMatch(/is larger than 1 MB/);
    expect((await platform.request('GET', `/user/knowledgebases/${kb}`, { token: user.token })).body.data.status).toBe('failed');
  });

  it('validates website input in Laravel\'s shape', async () => {
    const user = await createTestUser(platform.database.knex);
    const kb = await newKnowledgebase(user);
    const missing = await platform.request('POST', `/user/knowledgebases/${kb}/documents`, { token: user.token, body: { name: 'x', type: 'website' } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual({
      url: ['The url field is required when links is not present.'],
      links: ['The links field is required when url is not present.'],
    });
    const bad = await platform.request('POST', `/user/knowledgebases/${kb}/documents`, {
      token: user.token,
      body: { name: 'x'.repeat(256), type: 'web', links: [{ link: 'ftp://example.com' }, {}], relative_links_limit: 51 },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({
      name: ['The name field must not be greater than 255 characters.'],
      type: ['The selected type is invalid.'],
      'links.0.link': ['The links.0.link field must be a valid URL.'],
      'links.1.link': ['The links.1.link field is required.'],
      relative_links_limit: ['The relative links limit field must be between 1 and 50.'],
    });
    expect(await platform.database.knex('documents').where({ knowledgebaseId: kb }).count({ n: '*' })).toEqual([{ n: 0 }]);
  });
});

describe('file documents', () => {
  it('ingests real PDF, DOCX and TXT uploads until each is active and findable', async () => {
    const user = await createTestUser(platform.database.knex);
    const kb = await newKnowledgebase(user);
    const pdf = await uploadDocument(platform, user.token, kb, { name: 'Manual', type: 'pdf' }, {
      name: 'manual.pdf', data: await makePdf([['The warranty lasts five years.'], ['Batteries are replaced for free during the warranty.']]),
    });
    const docx = await uploadDocument(platform, user.token, kb, { name: 'Handbook', type: 'docx', description: 'HR' }, { name: 'handbook.docx', data: await makeDocx() });
    const txt = await uploadDocument(platform, user.token, kb, { name: 'Notes', type: 'txt' }, {
      name: 'notes.txt', data: iconv.encode('Le café ouvre à huit heures.\n\nLa crème brûlée coûte sept euros.', 'windows-1252'),
    });
    for (const response of [pdf, docx, txt]) {
      expect(response.status).toBe(201);
      expect(response.body.data.status).toBe('processing');
    }
    expect(docx.body.data).toMatchObject({ type: 'docx', type_label: 'Word Document', description: 'HR' });
    for (const response of [pdf, docx, txt]) {
      expect(await waitForDocument(platform, user.token, kb, response.body.data.id)).toMatchObject({ status: 'active', error: null });
    }
    const battery = await search(user, kb, 'batteries replaced');
    expect(battery.data[0]).toMatchObject({ document_id: pdf.body.data.id, metadata: { page: 2 } });
    const vacation = await search(user, kb, 'vacation days');
    expect(vacation.data[0]?.text).toContain('twenty-seven days of paid vacation');
    expect(vacation.data[0]?.metadata).toEqual({ heading: 'Vacation policy' });
    expect((await search(user, kb, 'crème brûlée')).data[0]?.text).toContain('La crème brûlée coûte sept euros.');

    const list = await platform.request('GET', `/user/knowledgebases/${kb}/documents`, { token: user.token });
    expect((list.body.data as { name: string }[]).map((document) => document.name)).toEqual(['Manual', 'Handbook', 'Notes']);
    expect(list.body.data[0]).toEqual({
      id: pdf.body.data.id, name: 'Manual', description: null, type: 'pdf', type_label: 'PDF', status: 'active', status_label: 'Active',
      error: null, created_at: expect.any(String), updated_at: expect.any(String),
    });
  });

  it('fails each bad file with a reason stored on the document', async () => {
    const user = await createTestUser(platform.database.knex);
    const kb = await newKnowledgebase(user);
    const cases = [
      { type: 'pdf', file: { name: 'locked.pdf', data: makeEncryptedPdf() }, error: 'The PDF is encrypted with a password and cannot be read.' },
      { type: 'pdf', file: { name: 'broken.pdf', data: (await makePdf([['Hello there']])).subarray(0, 300) }, error: /^The PDF could not be read/ },
      { type: 'pdf', file: { name: 'blank.pdf', data: await makePdf([[]]) }, error: 'No text could be extracted from the file.' },
      { type: 'docx', file: { name: 'bomb.docx', data: makeZip([{ name: 'word/document.xml', data: Buffer.alloc(40 * 1024 * 1024, 0x20) }]) }, error: /decompression bomb/ },
      { type: 'docx', file: { name: 'broken.docx', data: makeZip([{ name: 'word/document.xml', data: Buffer.from('<not xml') }]) }, error: /^The Word document could not be read/ },
      { type: 'txt', file: { name: 'binary.txt', data: Buffer.alloc(4096, 0) }, error: 'The file is not a text file.' },
    ];
    const created = [];
    for (const entry of cases) {
      const response = await uploadDocument(platform, user.token, kb, { name: entry.file.name, type: entry.type }, entry.file);
      expect(response.status).toBe(201);
      created.push(response.body.data.id as number);
    }
    for (const [index, entry] of cases.entries()) {
      const document = await waitForDocument(platform, user.token, kb, created[index]!);
      expect(document.status).toBe('failed');
      if (typeof entry.error === 'string') expect(document.error).toBe(entry.error);
      else expect(document.error).toMatch(entry.error);
    }
    expect(await platform.database.knex('document_chunks').where({ knowledgebaseId: kb }).count({ n: '*' })).toEqual([{ n: 0 }]);
    expect((await platform.request('GET', `/user/knowledgebases/${kb}`, { token: user.token })).body.data.status).toBe('failed');
  });

  it('answers 422 on file when a file type comes without a file, or with a file of another type', async () => {
    const user = await createTestUser(platform.database.knex);
    const kb = await newKnowledgebase(user);
    const uploadsBefore = filesUnder(path.join(storageDir, 'uploads')).length;
    const json = await platform.request('POST', `/user/knowledgebases/${kb}/documents`, { token: user.token, body: { name: 'x', type: 'pdf' } });
    expect(json.status).toBe(422);
    expect(json.body).toEqual({ message: 'A file is required for this document type.', errors: { file: ['A file is required for this document type.'] } });
    const form = await uploadDocument(platform, user.token, kb, { name: 'x', type: 'docx' });
    expect(form.body).toEqual(json.body);
    const wrong = await uploadDocument(platform, user.token, kb, { name: 'x', type: 'pdf' }, { name: 'x.pdf', data: Buffer.from('just text') });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors).toEqual({ file: ['The file field must be a file of type: pdf.'] });
    // Neither the refused upload nor any other was kept.
    expect(filesUnder(path.join(storageDir, 'uploads')).length).toBe(uploadsBefore);
  });

  it('cuts off an upload over 20 MB while streaming, answers 422 and keeps nothing', async () => {
    const user = await createTestUser(platform.database.knex);
    const kb = await newKnowledgebase(user);
    const uploadsBefore = filesUnder(path.join(storageDir, 'uploads')).length;
    const expected = { message: 'The file field must not be greater than 20480 kilobytes.', errors: { file: ['The file field must not be greater than 20480 kilobytes.'] } };

    // With a declared length: refused before reading.
    const declared = await uploadDocument(platform, user.token, kb, { name: 'big', type: 'txt' }, { name: 'big.txt', data: Buffer.alloc(21 * 1024 * 1024, 0x61) });
    expect(declared.status).toBe(422);
    expect(declared.body).toEqual(expected);

    // Streamed without a length: cut off at the cap.
    const boundary = 'parleyboundary';
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nbig\r\n--${boundary}\r\nContent-Disposition: form-data; name="type"\r\n\r\ntxt\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n`);
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    let sent = 0;
    const megabyte = Buffer.alloc(1024 * 1024, 0x62);
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(head);
        if (sent < 22) controller.enqueue(megabyte);
        else {
          controller.enqueue(tail);
          controller.close();
        }
        sent++;
      },
    });
    const response = await fetch(`${platform.baseUrl}/api/user/knowledgebases/${kb}/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: stream,
      duplex: 'half',
    });
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual(expected);
    expect(filesUnder(path.join(storageDir, 'uploads')).length).toBe(uploadsBefore);
    expect(await platform.database.knex('documents').where({ knowledgebaseId: kb }).count({ n: '*' })).toEqual([{ n: 0 }]);
  });
});

describe('deleting documents', () => {
  it('during processing: cancels the workflow and leaves no record, chunk or file behind', async () => {
    const user = await createTestUser(platform.database.knex);
    const kb = await newKnowledgebase(user);
    const file = await uploadDocument(platform, user.token, kb, { name: 'Notes', type: 'txt' }, { name: 'n.txt', data: Buffer.from('Slow notes about patience.') });
    const slow = await platform.request('POST', `/user/knowledgebases/${kb}/documents`, {
      token: user.token, body: { name: 'Slow site', type: 'website', url: `${site.url}/slow` },
    });
    expect(slow.status).toBe(201);
    const documentId = slow.body.data.id as number;
    // Wait until the crawler is inside the slow request.
    const deadline = Date.now() + 20_000;
    while (!site.hits.get('/slow') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(site.hits.get('/slow')).toBeGreaterThan(0);

    const handle = platform.temporal.client.workflow.getHandle(workflowIds.document(documentId));
    const deleted = await platform.request('DELETE', `/user/knowledgebases/${kb}/documents/${documentId}`, { token: user.token });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ message: 'Document deleted successfully.' });
    await expect(handle.result()).rejects.toThrow();
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    site.releaseSlow();

    expect(await platform.database.knex('documents').where({ id: documentId }).first()).toBeUndefined();
    expect(await platform.database.knex('document_chunks').where({ documentId }).count({ n: '*' })).toEqual([{ n: 0 }]);
    expect(filesUnder(path.join(storageDir, 'documents', String(documentId)))).toEqual([]);
    const missing = await platform.request('GET', `/user/knowledgebases/${kb}/documents/${documentId}`, { token: user.token });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'Document not found.' });

    // The remaining file document decides the knowledge base status; deleting it too empties it, file and all.
    await waitForDocument(platform, user.token, kb, file.body.data.id);
    const fileKey = (await platform.database.knex('documents').where({ id: file.body.data.id }).first()).fileKey as string;
    expect(fs.existsSync(path.join(storageDir, fileKey))).toBe(true);
    expect((await platform.request('GET', `/user/knowledgebases/${kb}`, { token: user.token })).body.data).toMatchObject({ status: 'active', documents_count: 1 });
    await platform.request('DELETE', `/user/knowledgebases/${kb}/documents/${file.body.data.id}`, { token: user.token });
    expect(fs.existsSync(path.join(storageDir, fileKey))).toBe(false);
    expect(await platform.database.knex('document_chunks').where({ knowledgebaseId: kb }).count({ n: '*' })).toEqual([{ n: 0 }]);
    expect((await platform.request('GET', `/user/knowledgebases/${kb}`, { token: user.token })).body.data).toMatchObject({ status: 'empty', status_label: 'Empty', documents_count: 0 });
  });
});
