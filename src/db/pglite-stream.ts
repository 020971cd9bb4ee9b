import { Duplex } from 'node:stream';
import type { FromPGliteThread, PGliteRequest } from './pglite-worker.ts';

/**
 * The parts in one new buffer that owns its whole ArrayBuffer, so it can be transferred between threads.
 * (`Buffer.concat` may hand out a slice of Node's shared pool, whose transfer would take the pool along.)
 */
export function joinedBytes(parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const joined = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}

/** PGlite's thread as its connections see it (embedded.ts). */
export interface PGliteSession {
  /** Sends a request; replies come in the order sent, an error reply or the thread's death rejects. */
  request(body: PGliteRequest, transfer?: ArrayBuffer[]): Promise<FromPGliteThread>;
  /** Tracks an open connection, to destroy it if the thread stops. */
  opened(stream: PGliteStream): void;
}

/**
 * A connection of the `pg` driver to PGlite on its thread (pglite-worker.ts), in memory: the driver writes the
 * wire protocol to it as to a socket, and what it writes in one go (a query's Parse, Bind, Describe, Execute and
 * Sync) crosses to the thread as one message, one copy of the bytes, whose whole answer comes back as one
 * transferred buffer. A unix socket served by pglite-socket cost a chat turn about 2 ms of CPU more: a socket
 * write each way per protocol message and a pass through PGlite's main loop for each (docs/decisions.md, "What
 * a turn's overhead is made of").
 *
 * PGlite is one session, so a new connection (the pool replaces one it let go) starts by resetting it as a
 * connection pooler does: the transaction a gone connection left open is rolled back, and `DISCARD ALL` drops
 * its prepared statements, settings and locks.
 */
export class PGliteStream extends Duplex {
  private readonly session: PGliteSession;
  private batch: Buffer[] = [];

  constructor(session: PGliteSession) {
    super();
    this.session = session;
  }

  /** What `pg` calls in place of a socket's connect: the session is reset, then the connection is up. */
  connect(): this {
    this.session.opened(this);
    this.session.request({ type: 'reset' }).then(() => this.emit('connect'), (error: unknown) => this.destroy(error as Error));
    return this;
  }

  // The socket methods `pg` calls, which mean nothing in memory.
  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }

  ref(): this {
    return this;
  }

  unref(): this {
    return this;
  }

  override _read(): void {
    // Answers are pushed as the thread gives them.
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    // The first message of a batch schedules it; the driver's other writes of the same tick join it.
    if (this.batch.push(chunk) === 1) queueMicrotask(() => this.sendBatch());
    callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    // The driver ends the connection: once the batches before its end have been answered, so does PGlite's side.
    // The end can come in the tick of the last writes, before their batch's turn: it is sent first.
    this.sendBatch();
    this.session.request({ type: 'sync' }).then(() => {
      this.push(null);
      callback();
    }, callback);
  }

  private sendBatch(): void {
    if (this.batch.length === 0) return;
    // Joined into a buffer of its own (the driver's may be slices of a shared pool), which is then moved to the
    // thread rather than copied again.
    const message = joinedBytes(this.batch);
    this.batch = [];
    this.session.request({ type: 'batch', message }, [message.buffer]).then(({ answer }) => {
      if (answer && !this.destroyed) this.push(Buffer.from(answer.buffer, answer.byteOffset, answer.byteLength));
    }, (error: unknown) => this.destroy(error as Error));
  }
}
