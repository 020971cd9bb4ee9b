import path from 'node:path';
import { fileURLToPath } from 'node:url';
import knexFactory, { type Knex } from 'knex';
import { knexSnakeCaseMappers, Model } from 'objection';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded.ts';

export type { Knex };

// Counts and ledger sums arrive as int8; micro-dollar totals stay far below 2^53, so numbers are exact.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export const migrationsDirectory = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'migrations');

export interface Database {
  knex: Knex;
  kind: 'pglite' | 'postgres';
  close(): Promise<void>;
}

export class DatabaseSetupError extends Error {
  override name = 'DatabaseSetupError';
}

function createKnex(connection: Knex.PgConnectionConfig | string, poolMax: number): Knex {
  return knexFactory({
    client: 'pg',
    connection,
    pool: { min: 0, max: poolMax },
    acquireConnectionTimeout: 30_000,
    migrations: { directory: migrationsDirectory, loadExtensions: ['.ts'], tableName: 'knex_migrations' },
    ...knexSnakeCaseMappers(),
  });
}

async function requirePgvector(knex: Knex, where: string): Promise<void> {
  const { rows } = await knex.raw<{ rows: unknown[] }>("select 1 from pg_available_extensions where name = 'vector'");
  if (rows.length === 0) {
    throw new DatabaseSetupError(
      `The PostgreSQL server at ${where} does not have the pgvector extension ("vector") installed. ` +
      'Install it (https://github.com/pgvector/pgvector, or run scripts/setup-postgres.sh on Debian) and start Parley again.',
    );
  }
}

/** A PostgreSQL server named by a URL. Fails with a clear message when pgvector is missing. */
export async function connectPostgres(url: string, poolMax: number): Promise<Database> {
  const knex = createKnex(url, poolMax);
  const where = new URL(url).host;
  try {
    await requirePgvector(knex, where);
  } catch (error) {
    await knex.destroy();
    if (error instanceof DatabaseSetupError) throw error;
    throw new DatabaseSetupError(`Cannot reach PostgreSQL at ${where}: ${(error as Error).message}`);
  }
  Model.knex(knex);
  return { knex, kind: 'postgres', close: () => knex.destroy() };
}

/** The embedded PGlite, either persistent under a data directory or loaded from a dump (tests). */
export async function openEmbedded(options: { dataDir?: string; loadDataDir?: Blob }): Promise<Database & { embedded: EmbeddedPostgres }> {
  const embedded = await startEmbeddedPostgres(options);
  const knex = createKnex(embedded.connection, 1);
  Model.knex(knex);
  return {
    knex,
    kind: 'pglite',
    embedded,
    close: async () => {
      await knex.destroy();
      await embedded.close();
    },
  };
}

export async function migrateLatest(knex: Knex): Promise<string[]> {
  const [, applied] = await knex.migrate.latest() as [number, string[]];
  return applied;
}

export async function migrateRollback(knex: Knex): Promise<string[]> {
  const [, rolledBack] = await knex.migrate.rollback() as [number, string[]];
  return rolledBack;
}
