import { Worker } from 'node:worker_threads';
import type { FromPGliteThread, PGliteRequest, PGliteThreadData } from './pglite-worker.ts';
import { PGliteStream, type PGliteSession } from './pglite-stream.ts';

const entry = new URL('./pglite-worker.ts', import.meta.url);

export interface EmbeddedPostgres {
  /** Connection settings for `pg`: each connection a stream to PGlite's thread, in memory (pglite-stream.ts). */
  connection: { user: string; database: string; stream: () => PGliteStream };
  /** A tarball of the whole database, for cloning a migrated template into tests. */
  dump(): Promise<Blob>;
  /** Closes PGlite and ends its thread; open streams are then destroyed. */
  close(): Promise<void>;
  /** The thread PGlite runs on (tests stop it to see what its death does to connections). */
  readonly thread: Worker;
}

interface Waiting {
  resolve(reply: FromPGliteThread): void;
  reject(error: Error): void;
}

/**
 * Starts PGlite (PostgreSQL compiled to WebAssembly) with pgvector on a worker thread (pglite-worker.ts), which
 * the application talks to through the same `pg` driver, type parsers and SQL as to a PostgreSQL server, over
 * in-memory streams instead of sockets: nothing outside this process can connect to it. On its own thread,
 * PGlite's WebAssembly and its synchronous file writes (40 % of a chat turn's CPU) stay off the event loop and
 * run on the second core (docs/decisions.md, "The embedded PGlite on a worker thread").
 *
 * Resolves once PGlite is up; a data directory or dump it cannot open rejects with PGlite's own error.
 * PGlite is a single session: the caller's pool must hold exactly one connection.
 */
export async function startEmbeddedPostgres(options: { dataDir?: string; loadDataDir?: Blob }): Promise<EmbeddedPostgres> {
  const data: PGliteThreadData = {
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
  };
  const thread = new Worker(entry, { workerData: data });
  // Replies come in the order requests were sent; request 0 is the start-up.
  const waiting = new Map<number, Waiting>();
  const streams = new Set<PGliteStream>();
  let nextId = 1;
  let stopped: Error | undefined;

  const started = new Promise<FromPGliteThread>((resolve, reject) => waiting.set(0, { resolve, reject }));
  thread.on('message', (reply: FromPGliteThread) => {
    const request = waiting.get(reply.id);
    if (!request) return;
    waiting.delete(reply.id);
    // An idle thread does not keep the process alive (PGlite on the main thread kept nothing alive either); one
    // owing an answer does, or a process awaiting a query with nothing else to do would exit before the answer.
    if (waiting.size === 0) thread.unref();
    request.resolve(reply);
  });
  thread.on('error', (error: unknown) => {
    stopped ??= error instanceof Error ? error : new Error(String(error));
  });
  thread.on('exit', (code) => {
    stopped ??= new Error(`The embedded database's thread stopped (exit code ${code}).`);
    for (const request of waiting.values()) request.reject(stopped);
    waiting.clear();
    for (const stream of streams) stream.destroy(stopped);
  });

  const request = (body: PGliteRequest, transfer: ArrayBuffer[] = []): Promise<FromPGliteThread> => {
    if (stopped) return Promise.reject(stopped);
    const id = nextId++;
    const reply = new Promise<FromPGliteThread>((resolve, reject) => waiting.set(id, { resolve, reject }));
    if (waiting.size === 1) thread.ref();
    thread.postMessage({ ...body, id }, transfer);
    return reply.then((answer) => {
      if (answer.error) throw answer.error;
      return answer;
    });
  };
  const session: PGliteSession = {
    request,
    opened: (stream) => {
      streams.add(stream);
      stream.once('close', () => streams.delete(stream));
    },
  };

  const startup = await started;
  if (startup.error) {
    await thread.terminate();
    throw startup.error;
  }

  let closing: Promise<void> | undefined;
  const close = async () => {
    try {
      if (stopped) return;
      const closed = request({ type: 'close' });
      // Requests sent before this one are still answered; none after it are taken.
      stopped = new Error('The embedded database is closed.');
      await closed;
    } finally {
      // PGlite is closed and the thread has nothing left to do: this only makes its end certain and awaited.
      await thread.terminate();
    }
  };

  return {
    connection: { user: 'postgres', database: 'postgres', stream: () => new PGliteStream(session) },
    dump: async () => {
      const { dump } = await request({ type: 'dump' });
      if (!dump) throw new Error('The embedded database answered a dump without one.');
      return dump;
    },
    close: () => (closing ??= close()),
    thread,
  };
}
