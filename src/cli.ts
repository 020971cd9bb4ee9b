import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, loadEnvFile, type Config } from './config.ts';
import { DatabaseSetupError, migrateLatest, migrateRollback, type Database } from './db/database.ts';
import { DataDirLockedError } from './db/data-dir-lock.ts';
import { randomUUID } from 'node:crypto';
import { ValidationError } from './lib/errors.ts';
import { microsToUsd, parseUsd } from './lib/money.ts';
import { openConfiguredDatabase } from './platform.ts';
import { createApiKey } from './resources/api-keys/service.ts';
import { balanceMicros, recordEntry } from './billing/ledger.ts';
import type { User } from './resources/users/model.ts';
import { createUser, findUserByEmail } from './resources/users/service.ts';

/** A CLI failure whose message is for the operator, printed without a stack trace. */
export class CliError extends Error {
  override name = 'CliError';
}

type Options = Record<string, string | boolean | undefined>;

function text(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value.trim() === '') throw new CliError(`--${name} needs a value.`);
  return value.trim();
}

function usd(options: Options, name: string): number {
  const micros = parseUsd(text(options, name));
  if (micros === undefined) throw new CliError(`--${name} must be an amount in USD such as 25 or -3.50.`);
  return micros;
}

async function userByEmail(database: Database, email: string): Promise<User> {
  const user = await findUserByEmail(database.knex, email);
  if (!user) throw new CliError(`No user has the email ${email}.`);
  return user;
}

interface Command {
  summary: string;
  /** The migration commands themselves; every other command first brings the schema up to date. */
  managesSchema?: boolean;
  options: Record<string, { type: 'string' | 'boolean'; required?: boolean; description: string }>;
  run(context: { config: Config; database: Database; options: Options; print: (value: unknown) => void }): Promise<void>;
}

export const commands: Record<string, Command> = {
  migrate: {
    summary: 'apply every pending migration',
    managesSchema: true,
    options: {},
    async run({ database, print }) {
      print({ applied: await migrateLatest(database.knex) });
    },
  },
  'migrate:rollback': {
    summary: 'undo the latest batch of migrations',
    managesSchema: true,
    options: {},
    async run({ database, print }) {
      print({ rolled_back: await migrateRollback(database.knex) });
    },
  },
  'user:create': {
    summary: 'create an account and print its first API key',
    options: {
      name: { type: 'string', required: true, description: 'full name' },
      email: { type: 'string', required: true, description: 'email address (unique)' },
      password: { type: 'string', description: 'password for POST /api/auth/login (min 8 characters); without it, API keys only' },
      balance: { type: 'string', description: 'starting balance in USD, written to the ledger' },
    },
    async run({ database, options, print }) {
      const email = text(options, 'email');
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new CliError('--email must be an email address.');
      const password = options.password === undefined ? undefined : text(options, 'password');
      if (password !== undefined && password.length < 8) throw new CliError('--password must be at least 8 characters.');
      const creditMicros = options.balance === undefined ? 0 : usd(options, 'balance');
      if (creditMicros < 0) throw new CliError('--balance cannot be negative.');
      const user = await createUser(database.knex, { name: text(options, 'name'), email, password, creditMicros, creditKind: 'adjustment' })
        .catch((error: unknown) => {
          if (error instanceof ValidationError) throw new CliError(`A user with the email ${email} already exists.`);
          throw error;
        });
      const { token } = await createApiKey(database.knex, user.id, 'cli');
      print({ user_id: user.id, api_key: token });
    },
  },
  'user:key': {
    summary: 'issue a new API key for an account',
    options: {
      email: { type: 'string', required: true, description: 'the account' },
      name: { type: 'string', description: 'label of the key (default "cli")' },
    },
    async run({ database, options, print }) {
      const user = await userByEmail(database, text(options, 'email'));
      const { token } = await createApiKey(database.knex, user.id, options.name === undefined ? 'cli' : text(options, 'name'));
      print({ user_id: user.id, api_key: token });
    },
  },
  'user:white-label-admin': {
    summary: 'make an account a white-label admin (the /api/white-label routes), or with --off an ordinary one again',
    options: {
      email: { type: 'string', required: true, description: 'the account' },
      off: { type: 'boolean', description: 'take the role away; its platform users stay, unreachable until it is given back' },
    },
    async run({ database, options, print }) {
      const user = await userByEmail(database, text(options, 'email'));
      const admin = options.off !== true;
      await database.knex('users').where({ id: user.id }).update({ whiteLabelAdmin: admin });
      print({ user_id: user.id, white_label_admin: admin });
    },
  },
  'balance:adjust': {
    summary: "add to (or, with a negative amount, take from) an account's balance",
    options: {
      email: { type: 'string', required: true, description: 'the account' },
      amount: { type: 'string', required: true, description: 'USD, e.g. 25, or --amount=-3.50 to take some off' },
      reason: { type: 'string', required: true, description: 'why, kept on the ledger entry' },
    },
    async run({ database, options, print }) {
      const user = await userByEmail(database, text(options, 'email'));
      const amountMicros = usd(options, 'amount');
      if (amountMicros === 0) throw new CliError('--amount must not be zero.');
      const entry = await recordEntry(database.knex, {
        userId: user.id,
        amountMicros,
        kind: 'adjustment',
        reference: 'cli',
        description: text(options, 'reason'),
        idempotencyKey: `adjustment:${randomUUID()}`,
      });
      print({ user_id: user.id, transaction_id: entry.id, amount: microsToUsd(amountMicros), total_balance: microsToUsd(await balanceMicros(database.knex, user.id)) });
    },
  },
};

function usage(): string {
  const lines = ['Usage: npm run cli -- <command> [options]', '', 'Commands:'];
  for (const [name, command] of Object.entries(commands)) {
    lines.push(`  ${name.padEnd(22)} ${command.summary}`);
    for (const [option, spec] of Object.entries(command.options)) {
      lines.push(`      --${option}${spec.type === 'string' ? ' <value>' : ''}${spec.required ? '' : ' (optional)'}  ${spec.description}`);
    }
  }
  return lines.join('\n');
}

/** Runs one command against the database `open` gives; returns the process exit code. */
export async function runCli(
  argv: string[],
  config: Config,
  out: (line: string) => void,
  open: (config: Config) => Promise<Database> = openConfiguredDatabase,
): Promise<number> {
  const [name, ...rest] = argv;
  const command = name ? commands[name] : undefined;
  if (!command) {
    out(usage());
    return name ? 1 : 0;
  }
  const { values } = parseArgs({
    args: rest,
    options: Object.fromEntries(Object.entries(command.options).map(([option, spec]) => [option, { type: spec.type }])),
    strict: true,
  });
  for (const [option, spec] of Object.entries(command.options)) {
    if (spec.required && values[option] === undefined) throw new CliError(`--${option} is required for ${name}.`);
  }
  const database = await open(config);
  try {
    // So that the first command on a fresh data directory (say, user:create) finds its tables.
    if (!command.managesSchema) await migrateLatest(database.knex);
    await command.run({ config, database, options: values, print: (value) => out(JSON.stringify(value)) });
    return 0;
  } finally {
    await database.close();
  }
}

async function main(): Promise<void> {
  loadEnvFile();
  const config = loadConfig();
  process.exitCode = await runCli(process.argv.slice(2), config, (line) => process.stdout.write(`${line}\n`));
}

if (import.meta.main) {
  main().catch((error: unknown) => {
    const forOperator = error instanceof CliError || error instanceof ConfigError || error instanceof DataDirLockedError
      || error instanceof DatabaseSetupError || (error instanceof TypeError && 'code' in error);
    const text = error instanceof Error ? (forOperator ? error.message : error.stack ?? error.message) : String(error);
    process.stderr.write(`${text}\n`);
    process.exit(1);
  });
}
