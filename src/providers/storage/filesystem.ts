import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StoredFileTooLargeError, type FileStorage } from './index.ts';

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

/** Files under one directory; writes go to a temporary name first so a reader never sees half a file. */
export function createFilesystemStorage(root: string): FileStorage {
  const resolve = (key: string): string => {
    const full = path.resolve(root, key);
    if (full !== root && !full.startsWith(root + path.sep)) throw new Error(`Storage key "${key}" leaves the storage directory.`);
    return full;
  };

  const temporaryFor = async (key: string): Promise<{ target: string; temporary: string }> => {
    const target = resolve(key);
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    return { target, temporary: `${target}.${randomUUID()}.part` };
  };

  return {
    async writeStream(key, source, options = {}) {
      const { target, temporary } = await temporaryFor(key);
      let size = 0;
      const limit = options.maxBytes ?? Number.POSITIVE_INFINITY;
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          size += chunk.length;
          if (size > limit) callback(new StoredFileTooLargeError(limit));
          else callback(null, chunk);
        },
      });
      try {
        await pipeline(source, counter, fs.createWriteStream(temporary));
        await fs.promises.rename(temporary, target);
        return { size };
      } catch (error) {
        await fs.promises.rm(temporary, { force: true });
        throw error;
      }
    },
    async write(key, data) {
      const { target, temporary } = await temporaryFor(key);
      await fs.promises.writeFile(temporary, data);
      await fs.promises.rename(temporary, target);
    },
    read: (key) => fs.promises.readFile(resolve(key)),
    async readIfExists(key) {
      try {
        return await fs.promises.readFile(resolve(key));
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    async openRead(key) {
      let handle: fs.promises.FileHandle;
      try {
        handle = await fs.promises.open(resolve(key), 'r');
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
      try {
        const { size } = await handle.stat();
        // The stream owns the handle from here and closes it when it ends or is destroyed.
        return { stream: handle.createReadStream(), size };
      } catch (error) {
        await handle.close();
        throw error;
      }
    },
    async exists(key) {
      try {
        await fs.promises.access(resolve(key));
        return true;
      } catch {
        return false;
      }
    },
    async delete(key) {
      await fs.promises.rm(resolve(key), { force: true });
    },
    async deletePrefix(prefix) {
      // A writer may still be adding files (a cancelled ingestion finishing its step): the directory is then
      // not empty when its last entry was removed, and the whole removal is tried again. What the writer adds
      // after the last try is removed by its own clean-up, which runs once it has stopped.
      await fs.promises.rm(resolve(prefix), { recursive: true, force: true, maxRetries: 10, retryDelay: 20 });
    },
  };
}
