import { Duplex } from 'node:stream';
import type { PGlite } from '@electric-sql/pglite';

/** A simple-protocol Query message: 'Q', its length, the SQL and a NUL. */
function queryMessage(sql: string): Buffer {
  const text = Buffer.from(`${sql}\0`, 'utf8');
  const message = Buffer.alloc(5 + text.length);
  message.write('Q', 0, 'ascii');
  message.writeInt32BE(4 + text.length, 1);
  text.copy(message, 5);
  return message;
}

/**
 * A connection of the `pg` driver to PGlite in this process, in memory: the driver writes the wire protocol to
 * it as to a socket, and what it writes in one go (a query's Parse, Bind, Describe, Execute and Sync) reaches
 * PGlite as one batch whose whole answer comes back as one chunk. A unix socket served by pglite-socket cost a
 * chat turn about 2 ms of CPU more: a socket write each way per protocol message and a pass through PGlite's
 * main loop for each (docs/decisions.md, "What a turn's overhead is made of").
 *
 * PGlite is one session, so a new connection (the pool replaces one it let go) starts by resetting it as a
 * connection pooler does: the transaction a gone connection left open is rolled back, and `DISCARD ALL` drops
 * its prepared statements, settings and locks.
 */
export class PGliteStream extends Duplex {
  private readonly db: PGlite;
  private batch: Buffer[] = [];

  constructor(db: PGlite) {
    super();
    this.db = db;
  }

  /** What `pg` calls in place of a socket's connect: the session is reset, then the connection is up. */
  connect(): this {
    const ignore = { onRawData: () => undefined };
    const reset = async () => {
      if (this.db.isInTransaction()) await this.db.execProtocolRawStream(queryMessage('ROLLBACK'), ignore);
      await this.db.execProtocolRawStream(queryMessage('DISCARD ALL'), ignore);
    };
    this.db.runExclusive(reset).then(() => this.emit('connect'), (error: unknown) => this.destroy(error as Error));
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
    // Answers are pushed as PGlite gives them.
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    // The first message of a batch schedules it; the driver's other writes of the same tick join it.
    if (this.batch.push(chunk) === 1) queueMicrotask(() => this.runBatch());
    callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    // The driver ends the connection: once the batches before its end have been answered, so does PGlite's side.
    this.db.runExclusive(() => Promise.resolve()).then(() => {
      this.push(null);
      callback();
    }, callback);
  }

  private runBatch(): void {
    const message = Buffer.concat(this.batch);
    this.batch = [];
    // The raw stream hands the answer over as it is written, copied out of PGlite's memory; PGlite's plain
    // execProtocolRaw would also parse every message of it, for nothing.
    const answer: Buffer[] = [];
    const run = () => this.db.execProtocolRawStream(message, { onRawData: (data) => answer.push(Buffer.from(data)) });
    // PGlite's lock keeps batches in order, and apart from the work of anything else that uses it.
    this.db.runExclusive(run).then(() => {
      if (answer.length > 0 && !this.destroyed) this.push(answer.length === 1 ? answer[0] : Buffer.concat(answer));
    }, (error: unknown) => this.destroy(error as Error));
  }
}
