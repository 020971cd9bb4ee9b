import fs from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGliteStream } from './pglite-stream.ts';

export interface EmbeddedPostgres {
  /** Connection settings for `pg`: each connection a stream to PGlite in memory (pglite-stream.ts). */
  connection: { user: string; database: string; stream: () => PGliteStream };
  /** A tarball of the whole database, for cloning a migrated template into tests. */
  dump(): Promise<Blob>;
  close(): Promise<void>;
}

/**
 * Starts PGlite (PostgreSQL compiled to WebAssembly) with pgvector, which the application talks to through the
 * same `pg` driver, type parsers and SQL as to a PostgreSQL server, over an in-memory stream instead of a socket:
 * nothing outside this process can connect to it.
 *
 * PGlite is a single session: the caller's pool must hold exactly one connection.
 */
export async function startEmbeddedPostgres(options: { dataDir?: string; loadDataDir?: Blob }): Promise<EmbeddedPostgres> {
  if (options.dataDir) fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const db = await PGlite.create({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
    extensions: { vector },
  });

  return {
    connection: { user: 'postgres', database: 'postgres', stream: () => new PGliteStream(db) },
    dump: async () => {
      const file = await db.dumpDataDir('none');
      return file;
    },
    close: async () => {
      await db.close();
    },
  };
}
