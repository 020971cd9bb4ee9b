import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgres {
  /** Connection settings for `pg`: a unix socket in a private directory. */
  connection: { host: string; port: number; user: string; database: string };
  /** A tarball of the whole database, for cloning a migrated template into tests. */
  dump(): Promise<Blob>;
  close(): Promise<void>;
}

const SOCKET_PORT = 5432;

/**
 * Starts PGlite (PostgreSQL compiled to WebAssembly) with pgvector, and serves it on a unix socket so that
 * the application talks to it through the same `pg` driver, type parsers and SQL as to a PostgreSQL server.
 *
 * PGlite is a single session: the server accepts one connection, and the caller's pool must hold exactly
 * one (pglite-socket's multiplexer can interleave the messages of two clients' extended-protocol queries).
 * The socket lives in a fresh 0700 directory so no other local user can connect to it.
 */
export async function startEmbeddedPostgres(options: { dataDir?: string; loadDataDir?: Blob }): Promise<EmbeddedPostgres> {
  if (options.dataDir) fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const db = await PGlite.create({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
    extensions: { vector },
  });
  const socketDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-pg-'));
  fs.chmodSync(socketDir, 0o700);
  const server = new PGLiteSocketServer({ db, path: path.join(socketDir, `.s.PGSQL.${SOCKET_PORT}`), maxConnections: 1 });
  await server.start();

  return {
    connection: { host: socketDir, port: SOCKET_PORT, user: 'postgres', database: 'postgres' },
    dump: async () => {
      const file = await db.dumpDataDir('none');
      return file;
    },
    close: async () => {
      await server.stop();
      await db.close();
      fs.rmSync(socketDir, { recursive: true, force: true });
    },
  };
}
