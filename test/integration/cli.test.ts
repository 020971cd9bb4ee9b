import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliError, runCli } from '../../src/cli.ts';
import { loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('the operators\' CLI', () => {
  let platform: TestPlatform;
  const config = loadConfig({ NODE_ENV: 'test' });
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(() => platform.close());

  /** Runs a command on this file's database (kept open: the CLI closes what it opened). */
  async function cli(...argv: string[]): Promise<{ code: number; output: unknown[] }> {
    const output: unknown[] = [];
    const database: Database = { ...platform.database, close: () => Promise.resolve() };
    const code = await runCli(argv, config, (line) => output.push(JSON.parse(line)), () => Promise.resolve(database));
    return { code, output };
  }

  it('user:create makes an account with a starting balance and prints a working API key', async () => {
    const email = `ops-${Date.now()}@example.test`;
    const { code, output } = await cli('user:create', '--name', 'Ops Person', '--email', email, '--balance', '12.5', '--password', 'a long password');
    expect(code).toBe(0);
    expect(output).toEqual([{ user_id: expect.any(Number), api_key: expect.stringMatching(/^\d+\|[A-Za-z0-9]{40,}$/) }]);
    const { api_key: key } = output[0] as { api_key: string };
    const me = await platform.request('GET', '/user/me', { token: key });
    expect(me.body).toEqual({ name: 'Ops Person', email, total_balance: 12.5 });
    const login = await platform.request('POST', '/auth/login', { body: { email, password: 'a long password' } });
    expect(login.status).toBe(200);
  });

  it('user:create refuses an email that exists, whatever its case', async () => {
    const email = `twice-${Date.now()}@example.test`;
    await cli('user:create', '--name', 'Once', '--email', email);
    await expect(cli('user:create', '--name', 'Twice', '--email', email.toUpperCase())).rejects.toThrow(CliError);
  });

  it('user:key issues another key for the account', async () => {
    const email = `keys-${Date.now()}@example.test`;
    const created = await cli('user:create', '--name', 'Keys', '--email', email);
    const { code, output } = await cli('user:key', '--email', email);
    expect(code).toBe(0);
    const { user_id: userId, api_key: key } = output[0] as { user_id: number; api_key: string };
    expect(userId).toBe((created.output[0] as { user_id: number }).user_id);
    expect((await platform.request('GET', '/user/me', { token: key })).status).toBe(200);
    await expect(cli('user:key', '--email', 'nobody@example.test')).rejects.toThrow('No user has the email nobody@example.test.');
  });

  it('balance:adjust writes a ledger entry that the balance reflects', async () => {
    const email = `money-${Date.now()}@example.test`;
    const created = await cli('user:create', '--name', 'Money', '--email', email, '--balance', '5');
    const { api_key: key } = created.output[0] as { api_key: string };
    const credit = await cli('balance:adjust', '--email', email, '--amount', '2.75', '--reason', 'goodwill');
    expect(credit.output[0]).toEqual({ user_id: expect.any(Number), transaction_id: expect.any(Number), amount: 2.75, total_balance: 7.75 });
    const debit = await cli('balance:adjust', '--email', email, '--amount=-1.5', '--reason', 'correction');
    expect((debit.output[0] as { total_balance: number }).total_balance).toBe(6.25);
    expect((await platform.request('GET', '/user/me', { token: key })).body.total_balance).toBe(6.25);
    const entry = await platform.database.knex('balance_transactions').where({ id: (debit.output[0] as { transaction_id: number }).transaction_id }).first();
    expect(entry).toEqual(expect.objectContaining({ amountMicros: -1_500_000, kind: 'adjustment', description: 'correction' }));
  });

  it('user:white-label-admin gives and takes the white-label role', async () => {
    const email = `agency-${Date.now()}@example.test`;
    const created = await cli('user:create', '--name', 'Agency', '--email', email);
    const { user_id: userId, api_key: key } = created.output[0] as { user_id: number; api_key: string };
    expect((await platform.request('GET', '/white-label/users', { token: key })).status).toBe(403);
    const on = await cli('user:white-label-admin', '--email', email);
    expect(on).toEqual({ code: 0, output: [{ user_id: userId, white_label_admin: true }] });
    expect((await platform.request('GET', '/white-label/users', { token: key })).body).toEqual({ data: [] });
    const off = await cli('user:white-label-admin', '--email', email, '--off');
    expect(off.output).toEqual([{ user_id: userId, white_label_admin: false }]);
    expect((await platform.request('GET', '/white-label/users', { token: key })).status).toBe(403);
    await expect(cli('user:white-label-admin', '--email', 'nobody@example.test')).rejects.toThrow('No user has the email nobody@example.test.');
  });

  it('names a missing option and refuses bad amounts', async () => {
    await expect(cli('balance:adjust', '--email', 'x@example.test', '--amount', '1')).rejects.toThrow('--reason is required for balance:adjust.');
    await expect(cli('balance:adjust', '--email', 'x@example.test', '--amount', 'ten', '--reason', 'r')).rejects.toThrow(CliError);
  });

  it('refuses to open the embedded database while a Parley process holds it', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-cli-lock-'));
    try {
      // This test process is alive, so a lock naming it belongs to a running process.
      fs.writeFileSync(path.join(dataDir, 'parley.lock'), String(process.pid));
      const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PARLEY_ENV_FILE: path.join(dataDir, 'none') };
      delete env.DATABASE_URL;
      const result = spawnSync(process.execPath, ['src/cli.ts', 'user:key', '--email', 'a@example.test'], { cwd: root, env, encoding: 'utf8' });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(`in use by a running Parley process (pid ${process.pid})`);
      expect(fs.existsSync(path.join(dataDir, 'pg'))).toBe(false);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
