import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { joinedBytes } from './pglite-stream.ts';

/** What the thread starts from (embedded.ts): a directory to persist in, or a dump to load (tests), or neither. */
export interface PGliteThreadData {
  dataDir?: string;
  loadDataDir?: Blob;
}

/**
 * A request to the thread. Each is answered once, in the order sent: `reset` starts a new connection's session,
 * `batch` is one tick of a connection's protocol writes, `sync` is answered once everything sent before it has
 * been, `dump` tars the database, `close` closes PGlite (the thread then has nothing left to do and ends).
 */
export type PGliteRequest = { type: 'reset' | 'sync' | 'dump' | 'close' } | { type: 'batch'; message: Uint8Array };
export type ToPGliteThread = PGliteRequest & { id: number };

/** The answer to request `id` (0: start-up): the protocol bytes of a batch, a dump, or the error it ran into. */
export interface FromPGliteThread {
  id: number;
  answer?: Uint8Array;
  dump?: Blob;
  error?: Error;
}

/** A simple-protocol Query message: 'Q', its length, the SQL and a NUL. */
function queryMessage(sql: string): Uint8Array {
  const text = Buffer.from(`${sql}\0`, 'utf8');
  const message = Buffer.alloc(5 + text.length);
  message.write('Q', 0, 'ascii');
  message.writeInt32BE(4 + text.length, 1);
  text.copy(message, 5);
  return message;
}

const ignore = { onRawData: () => undefined };

/**
 * Runs one protocol batch. The raw stream hands the answer over as PGlite writes it, as views of its memory that
 * the next write reuses, so each part is copied out once; several parts are joined into one fresh buffer, so the
 * answer crosses to the main thread as one transferred ArrayBuffer, without another copy. (PGlite's plain
 * execProtocolRaw would also parse every message of the answer, for nothing.)
 */
async function runBatch(db: PGlite, message: Uint8Array): Promise<Uint8Array | undefined> {
  const parts: Uint8Array[] = [];
  await db.execProtocolRawStream(message, { onRawData: (data) => parts.push(new Uint8Array(data)) });
  return parts.length <= 1 ? parts[0] : joinedBytes(parts);
}

async function serve(db: PGlite, request: ToPGliteThread): Promise<FromPGliteThread> {
  switch (request.type) {
    case 'batch':
      return { id: request.id, answer: await runBatch(db, request.message) };
    case 'reset':
      // PGlite is one session: a new connection starts on it as a pooler's would, without what the last one left
      // (its open transaction, prepared statements, settings and locks).
      if (db.isInTransaction()) await db.execProtocolRawStream(queryMessage('ROLLBACK'), ignore);
      await db.execProtocolRawStream(queryMessage('DISCARD ALL'), ignore);
      return { id: request.id };
    case 'sync':
      return { id: request.id };
    case 'dump':
      return { id: request.id, dump: await db.dumpDataDir('none') };
    case 'close':
      await db.close();
      return { id: request.id };
  }
}

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('pglite-worker.ts runs as a worker thread (src/db/embedded.ts starts it)');
  const data = workerData as PGliteThreadData;
  let db: PGlite;
  try {
    if (data.dataDir) fs.mkdirSync(data.dataDir, { recursive: true, mode: 0o700 });
    db = await PGlite.create({
      ...(data.dataDir ? { dataDir: data.dataDir } : {}),
      ...(data.loadDataDir ? { loadDataDir: data.loadDataDir } : {}),
      extensions: { vector },
    });
  } catch (error) {
    port.postMessage({ id: 0, error: error instanceof Error ? error : new Error(String(error)) } satisfies FromPGliteThread);
    port.close();
    return;
  }
  port.postMessage({ id: 0 } satisfies FromPGliteThread);

  // Requests run one at a time in the order they came, so each connection's batches are answered in order and a
  // `sync` after the ones before it. (PGlite's own runExclusive would deadlock with dumpDataDir, which takes it.)
  let queue = Promise.resolve();
  port.on('message', (request: ToPGliteThread) => {
    queue = queue.then(async () => {
      let reply: FromPGliteThread;
      try {
        reply = await serve(db, request);
      } catch (error) {
        reply = { id: request.id, error: error instanceof Error ? error : new Error(String(error)) };
      }
      port.postMessage(reply, reply.answer ? [reply.answer.buffer as ArrayBuffer] : []);
      if (request.type === 'close') port.close();
    });
  });
}

await main();
