import type { Readable } from 'node:stream';

/**
 * Where uploaded files and ingestion work files live, addressed by keys like `documents/42/source.pdf`.
 * The filesystem implementation serves one machine or a shared volume; an object store fits the same shape.
 */
export interface FileStorage {
  /** Writes a stream under `key`; rejects with `StoredFileTooLargeError` (nothing kept) past `maxBytes`. */
  writeStream(key: string, source: Readable, options?: { maxBytes?: number }): Promise<{ size: number }>;
  write(key: string, data: Buffer | string): Promise<void>;
  read(key: string): Promise<Buffer>;
  /** `undefined` when nothing is stored under `key`. */
  readIfExists(key: string): Promise<Buffer | undefined>;
  /** A stream of what is stored under `key` and its size in bytes (for a response's length), `undefined` when nothing is. */
  openRead(key: string): Promise<{ stream: Readable; size: number } | undefined>;
  exists(key: string): Promise<boolean>;
  /** Removes one key; missing keys are fine, so deletion is idempotent. */
  delete(key: string): Promise<void>;
  /**
   * Removes every key under a prefix such as `documents/42/`; idempotent, and keys written under it meanwhile
   * (by an ingestion still stopping) do not make it fail.
   */
  deletePrefix(prefix: string): Promise<void>;
}

export class StoredFileTooLargeError extends Error {
  override name = 'StoredFileTooLargeError';
  readonly maxBytes: number;
  constructor(maxBytes: number) {
    super(`The file is larger than ${maxBytes} bytes.`);
    this.maxBytes = maxBytes;
  }
}

