import knexFactory from 'knex';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepared } from '../../src/db/prepared.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded.ts';

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
});
