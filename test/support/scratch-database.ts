import { randomBytes } from 'node:crypto';
import knexFactory from 'knex';

/**
 * A database of this run's own on the server of `url`, so runs never see each other's data or migrations.
 * Without the privilege to create one, the tests use the given database itself.
 */
export async function createScratchDatabase(url: string, prefix = 'parley_test'): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  const admin = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  try {
    await admin.raw(`create database ${name}`);
  } catch {
    await admin.destroy();
    return undefined;
  }
  const scratchUrl = new URL(url);
  scratchUrl.pathname = `/${name}`;
  return {
    url: scratchUrl.toString(),
    drop: async () => {
      await admin.raw(`drop database if exists ${name} with (force)`);
      await admin.destroy();
    },
  };
}
