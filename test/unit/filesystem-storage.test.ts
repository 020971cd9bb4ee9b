import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFilesystemStorage } from '../../src/providers/storage/filesystem.ts';

describe('filesystem storage', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-storage-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('removes a prefix while a writer is still adding files under it, and again once it has stopped', async () => {
    const root = tempDir();
    const storage = createFilesystemStorage(root);
    // Like a cancelled ingestion that writes its crawled pages while the document is being deleted. The
    // writer's own failures (its temporary file removed under it) are its business, not the deleter's.
    for (let round = 0; round < 20; round++) {
      const writer = (async () => {
        for (let index = 0; index < 30; index++) await storage.write(`documents/7/source-${index}.html`, 'x'.repeat(1000));
      })().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 1));
      await expect(storage.deletePrefix('documents/7/')).resolves.toBeUndefined();
      await writer;
      // What the writer wrote after the removal goes with the next one (the workflow's clean-up).
      await storage.deletePrefix('documents/7/');
      expect(fs.existsSync(path.join(root, 'documents', '7'))).toBe(false);
    }
  });

  it('opens a stored file as a stream with its size, and says when there is none', async () => {
    const storage = createFilesystemStorage(tempDir());
    await storage.write('calls/3/recording.wav', Buffer.from('RIFF....WAVE'));
    const opened = await storage.openRead('calls/3/recording.wav');
    expect(opened?.size).toBe(12);
    const chunks: Buffer[] = [];
    for await (const chunk of opened?.stream ?? []) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('RIFF....WAVE');
    expect(await storage.openRead('calls/4/recording.wav')).toBeUndefined();
  });

  it('removes a missing prefix or key without complaint', async () => {
    const storage = createFilesystemStorage(tempDir());
    await expect(storage.deletePrefix('documents/8/')).resolves.toBeUndefined();
    await expect(storage.delete('uploads/missing.pdf')).resolves.toBeUndefined();
  });
});
