import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import knexFactory from 'knex';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { prepared } from '../../src/db/prepared.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded.ts';
import type { PGliteStream } from '../../src/db/pglite-stream.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** A protocol message: its type byte (none for the startup message), its length and its body. */
function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(type ? 5 : 4);
  if (type) head.write(type, 0, 'ascii');
  head.writeInt32BE(4 + body.length, type ? 1 : 0);
  return Buffer.concat([head, body]);
}
const startup = () => message('', Buffer.concat([Buffer.from([0, 3, 0, 0]), Buffer.from('user\0postgres\0database\0postgres\0\0')]));
const query = (sql: string) => message('Q', Buffer.from(`${sql}\0`));

/** Reads a raw connection until `count` ReadyForQuery messages, returning the first column of each DataRow in order. */
async function readRows(stream: PGliteStream, count: number): Promise<string[]> {
  const rows: string[] = [];
  let pending = Buffer.alloc(0);
  let ready = 0;
  for await (const chunk of stream) {
    pending = Buffer.concat([pending, chunk as Buffer]);
    while (pending.length >= 5 && pending.length >= 1 + pending.readInt32BE(1)) {
      const length = pending.readInt32BE(1);
      if (pending[0] === 0x44) rows.push(pending.subarray(11, 11 + pending.readInt32BE(7)).toString());
      if (pending[0] === 0x5a && ++ready === count) return rows;
      pending = pending.subarray(1 + length);
    }
  }
  throw new Error(`the stream ended after ${ready} of ${count} answers`);
}

async function connected(stream: PGliteStream): Promise<PGliteStream> {
  stream.connect();
  await once(stream, 'connect');
  return stream;
}

/** The `pg` driver's connections to the embedded PGlite, each an in-memory stream to its one session (src/db/pglite-stream.ts). */
describe('connections to the embedded PGlite', () => {
  let embedded: EmbeddedPostgres;
  const pool = () => knexFactory({ client: 'pg', connection: embedded.connection, pool: { min: 0, max: 1 } });

  beforeAll(async () => {
    embedded = await startEmbeddedPostgres({});
  });
  afterAll(async () => {
    await embedded.close();
  });

  it('answer queries, errors and named prepared statements as a server does, whatever the size of the answer', async () => {
    const knex = pool();
    try {
      expect((await knex.raw('select ?::int + 1 as n', [41])).rows).toEqual([{ n: 42 }]);
      await expect(knex.raw('select * from no_such_table')).rejects.toThrow(/relation "no_such_table" does not exist/);
      const big = await prepared('stream-test-big', knex.raw("select repeat('x', ?) as text from generate_series(1, 50)", [100_000]));
      expect(big.rows).toHaveLength(50);
      expect(big.rows.every((row: { text: string }) => row.text.length === 100_000)).toBe(true);
      // A named statement runs again on the same connection without being parsed again, and after an error.
      for (const size of [1, 2]) expect((await prepared('stream-test-big', knex.raw("select repeat('x', ?) as text from generate_series(1, 50)", [size]))).rows[0].text).toHaveLength(size);
    } finally {
      await knex.destroy();
    }
  });

  it('begin on a session reset as by a pooler: a gone connection\'s prepared statements and open transaction do not outlive it', async () => {
    const first = new pg.Client(embedded.connection);
    await first.connect();
    expect((await first.query({ name: 'stream-test-named', text: 'select 1 as one' })).rows).toEqual([{ one: 1 }]);
    await first.query('begin');
    await first.query('create table left_open (id int)');
    // The connection goes with its transaction open (as when the pool lets an idle one go, or it breaks).
    await first.end();

    const second = new pg.Client(embedded.connection);
    await second.connect();
    try {
      expect((await second.query({ name: 'stream-test-named', text: 'select 1 as one' })).rows).toEqual([{ one: 1 }]);
      expect((await second.query("select to_regclass('left_open') as found")).rows).toEqual([{ found: null }]);
    } finally {
      await second.end();
    }
  });

  it('send what the driver writes in one tick as one batch, and answer batches in the order written', async () => {
    const stream = await connected(embedded.connection.stream());
    const post = vi.spyOn(embedded.thread, 'postMessage');
    try {
      stream.write(startup());
      await new Promise((resolve) => setImmediate(resolve));
      // Three queries in one tick cross as one message; then eight ticks of one each, all in flight at once.
      for (const n of [1, 2, 3]) stream.write(query(`select ${n}`));
      for (let n = 4; n <= 11; n++) queueMicrotask(() => setImmediate(() => stream.write(query(`select ${n}, pg_sleep(${(12 - n) / 1000})`))));
      const rows = readRows(stream, 1 + 11);
      expect(await rows).toEqual(Array.from({ length: 11 }, (_, i) => String(i + 1)));
      const batches = post.mock.calls.filter(([request]) => (request as { type: string }).type === 'batch');
      expect(batches).toHaveLength(1 + 1 + 8);
    } finally {
      post.mockRestore();
      stream.destroy();
    }
  });

  it('answer the end of a connection after the batches written before it', async () => {
    const stream = await connected(embedded.connection.stream());
    stream.write(startup());
    // The startup message is a batch of its own, as the driver sends it (it waits for the answer).
    await new Promise((resolve) => setImmediate(resolve));
    stream.write(query('select pg_sleep(0.05), 7'));
    stream.end();
    const answer: Buffer[] = [];
    for await (const chunk of stream) answer.push(chunk as Buffer);
    // The whole answer came before the end: its last message is the ReadyForQuery after the query.
    expect(Buffer.concat(answer).toString()).toContain('SELECT 1');
    expect(Buffer.concat(answer).subarray(-6, -5).toString()).toBe('Z');
  });
});

describe('the embedded PGlite\'s thread', () => {
  it('rejects a start with the error that stopped PGlite', async () => {
    await expect(startEmbeddedPostgres({ dataDir: '/dev/null/pg' })).rejects.toThrow(/ENOTDIR/);
    await expect(startEmbeddedPostgres({ loadDataDir: new Blob(['not a tarball']) })).rejects.toThrow(/PGlite failed to initialize/);
  });

  it('destroys every open connection when it dies, and later connections fail clearly', async () => {
    const embedded = await startEmbeddedPostgres({});
    const busy = new pg.Client(embedded.connection);
    busy.on('error', () => undefined);
    await busy.connect();
    // A connection the pool holds idle, waiting for nothing, hears of the death too.
    const idle = await connected(embedded.connection.stream());
    const idleClosed = new Promise<Error>((resolve) => idle.on('error', resolve));
    const running = busy.query('select pg_sleep(5)');
    await new Promise((resolve) => setImmediate(resolve));
    await embedded.thread.terminate();
    await expect(running).rejects.toThrow(/thread stopped/);
    expect((await idleClosed).message).toMatch(/thread stopped/);
    await expect(new pg.Client(embedded.connection).connect()).rejects.toThrow(/The embedded database's thread stopped/);
    await embedded.close();
  });

  it('ends on close, after the answers asked for before it; nothing keeps the process alive', async () => {
    const embedded = await startEmbeddedPostgres({});
    const client = new pg.Client(embedded.connection);
    client.on('error', () => undefined);
    await client.connect();
    const exited = once(embedded.thread, 'exit');
    const answer = client.query('select pg_sleep(0.05), 1 as one');
    // Once the query is written (the driver's writes of a tick cross at its end), close() waits for its answer.
    await new Promise((resolve) => setImmediate(resolve));
    await embedded.close();
    expect((await answer).rows[0].one).toBe(1);
    await exited;
    await expect(new pg.Client(embedded.connection).connect()).rejects.toThrow(/The embedded database is closed/);

    // A process with the database open exits once it has nothing left to do: the thread holds it only while
    // it owes an answer (without that, the awaited query would end the process with an unsettled await).
    const script = path.join(await mkdtemp(path.join(os.tmpdir(), 'pglite-exit-')), 'script.mjs');
    await writeFile(script, `
      import pg from ${JSON.stringify(import.meta.resolve('pg'))};
      import { startEmbeddedPostgres } from ${JSON.stringify(`${root}src/db/embedded.ts`)};
      const embedded = await startEmbeddedPostgres({});
      const client = new pg.Client(embedded.connection);
      await client.connect();
      console.log((await client.query('select 40 + 2 as n')).rows[0].n);`);
    try {
      const { stdout } = await promisify(execFile)(process.execPath, [script], { cwd: root, timeout: 60_000 });
      expect(stdout.trim()).toBe('42');
    } finally {
      await rm(path.dirname(script), { recursive: true });
    }
  });
});
