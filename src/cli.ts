import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, loadEnvFile, type Config } from './config.ts';
import { DatabaseSetupError, migrateLatest, migrateRollback, type Database } from './db/database.ts';
import { DataDirLockedError } from './db/data-dir-lock.ts';
import { openConfiguredDatabase } from './platform.ts';

/** A CLI failure whose message is for the operator, printed without a stack trace. */
export class CliError extends Error {
  override name = 'CliError';
}

type Options = Record<string, string | boolean | undefined>;

interface Command {
  summary: string;
  options: Record<string, { type: 'string' | 'boolean'; required?: boolean; description: string }>;
  run(context: { config: Config; database: Database; options: Options; print: (value: unknown) => void }): Promise<void>;
}

export const commands: Record<string, Command> = {
  migrate: {
    summary: 'apply every pending migration',
    options: {},
    async run({ database, print }) {
      print({ applied: await migrateLatest(database.knex) });
    },
  },
  'migrate:rollback': {
    summary: 'undo the latest batch of migrations',
    options: {},
    async run({ database, print }) {
      print({ rolled_back: await migrateRollback(database.knex) });
    },
  },
};

function usage(): string {
  const lines = ['Usage: npm run cli -- <command> [options]', '', 'Commands:'];
  for (const [name, command] of Object.entries(commands)) {
    lines.push(`  ${name.padEnd(18)} ${command.summary}`);
    for (const [option, spec] of Object.entries(command.options)) {
      lines.push(`      --${option}${spec.type === 'string' ? ' <value>' : ''}${spec.required ? '' : ' (optional)'}  ${spec.description}`);
    }
  }
  return lines.join('\n');
}

/** Runs one command against the configured database; returns the process exit code. */
export async function runCli(argv: string[], config: Config, out: (line: string) => void): Promise<number> {
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
  const database = await openConfiguredDatabase(config);
  try {
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
