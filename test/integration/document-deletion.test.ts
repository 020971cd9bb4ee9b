import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFilesystemStorage } from '../../src/providers/storage/filesystem.ts';
import type { FileStorage } from '../../src/providers/storage/index.ts';
import { workflowIds } from '../../src/temporal/names.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser } from '../support/users.ts';
import { startPrivateServer, startTestWebsite, type TestWebsite } from '../fakes/website.ts';

/**
 * The platform's filesystem storage with a hold that makes the race of issue 13 likely rather than rare: once
 * held for a document, its ingestion's crawled pages after the first wait until that document's files are
 * being deleted, then are written while the deletion runs.
 */
function racingStorage(root: string) {
  const storage = createFilesystemStorage(root);
  const holds = new Map<number, { firstPageStored: () => void; deleting: Promise<void>; startDeleting: () => void }>();
  const racing: FileStorage = {
    ...storage,
    async write(key, data) {
      const page = /^documents\/(\d+)\/source-(\d+)\.html$/.exec(key);
      const hold = page ? holds.get(Number(page[1])) : undefined;
      if (hold && page?.[2] !== '0') await hold.deleting;
      await storage.write(key, data);
      if (hold && page?.[2] === '0') hold.firstPageStored();
    },
    async deletePrefix(prefix) {
      const hold = holds.get(Number(/^documents\/(\d+)\/$/.exec(prefix)?.[1]));
      // Two turns of the event loop on, the removal is reading the directory: the pages written from then on
      // land in a directory it believes it is emptying.
      if (hold) setImmediate(() => setImmediate(hold.startDeleting));
      await storage.deletePrefix(prefix);
    },
  };
  return {
    storage: racing,
    /** Resolves once the ingestion of the document has stored its first page and holds its next ones. */
    holdPages(documentId: number): Promise<void> {
      return new Promise((firstPageStored) => {
        let startDeleting = () => {};
        const deleting = new Promise<void>((resolve) => {
          startDeleting = resolve;
          // Never holds an ingestion past the test, whatever happens to the deletion.
          setTimeout(resolve, 10_000).unref();
        });
        holds.set(documentId, { firstPageStored, deleting, startDeleting });
      });
    },
  };
}

let platform: TestPlatform;
let site: TestWebsite;
let privateServer: Awaited<ReturnType<typeof startPrivateServer>>;
let storageDir: string;
let storage: ReturnType<typeof racingStorage>;

beforeAll(async () => {
  storageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-storage-'));
  storage = racingStorage(storageDir);
  privateServer = await startPrivateServer();
  site = await startTestWebsite({ privateTarget: privateServer.url, hugeBytes: 2 * 1024 * 1024 });
  platform = await startTestPlatform({
    worker: true,
    providers: { storage: storage.storage },
    env: { FETCH_ALLOW_HOSTS: '127.0.0.1', FETCH_MAX_BYTES: '1mb', FETCH_TIMEOUT: '10s', STORAGE_DIR: storageDir },
  });
});

afterAll(async () => {
  await platform?.close();
  await site?.close();
  await privateServer?.close();
  fs.rmSync(storageDir, { recursive: true, force: true });
});

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('deleting a website document while it is being ingested', () => {
  it('answers as documented every time and leaves no file once the ingestion has stopped', async () => {
    const user = await createTestUser(platform.database.knex);
    const kb = (await platform.request('POST', '/user/knowledgebases', { token: user.token, body: { name: 'Docs' } })).body.data.id as number;
    const deleted: number[] = [];
    for (let round = 0; round < 10; round++) {
      const catalogueHits = site.hits.get('/catalogue') ?? 0;
      const created = await platform.request('POST', `/user/knowledgebases/${kb}/documents`, {
        token: user.token, body: { name: `Catalogue ${round}`, type: 'website', url: `${site.url}/catalogue`, relative_links_limit: 50 },
      });
      expect(created.status).toBe(201);
      const documentId = created.body.data.id as number;
      // Even rounds: while the crawler is fetching pages. Odd rounds: while it stores what it crawled.
      if (round % 2 === 0) await waitFor(() => (site.hits.get('/catalogue') ?? 0) > catalogueHits, 'the crawl to start');
      else await storage.holdPages(documentId);

      const response = await platform.request('DELETE', `/user/knowledgebases/${kb}/documents/${documentId}`, { token: user.token });
      expect({ round, status: response.status, body: response.body }).toEqual({ round, status: 200, body: { message: 'Document deleted successfully.' } });
      deleted.push(documentId);
    }

    for (const documentId of deleted) {
      const handle = platform.temporal.client.workflow.getHandle(workflowIds.document(documentId));
      await handle.result().catch(() => undefined);
      expect(['CANCELLED', 'COMPLETED']).toContain((await handle.describe()).status.name);
      expect({ documentId, files: filesUnder(path.join(storageDir, 'documents', String(documentId))) }).toEqual({ documentId, files: [] });
    }
    expect(await platform.database.knex('documents').whereIn('id', deleted).count({ n: '*' })).toEqual([{ n: 0 }]);
    expect(await platform.database.knex('document_chunks').whereIn('documentId', deleted).count({ n: '*' })).toEqual([{ n: 0 }]);
    expect((await platform.request('GET', `/user/knowledgebases/${kb}`, { token: user.token })).body.data).toMatchObject({ status: 'empty', documents_count: 0 });
  }, 180_000);
});
