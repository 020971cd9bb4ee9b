import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import type { Logger } from '../logger.ts';
import { searchAttributeFlags } from './names.ts';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const installScript = path.join(projectRoot, 'scripts', 'install-temporal.sh');
const localCli = path.join(projectRoot, '.tools', 'bin', 'temporal');

export class TemporalCliMissingError extends Error {
  override name = 'TemporalCliMissingError';
}

function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, command);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** The `temporal` CLI: an explicit path, then PATH, then `./.tools/bin`, installing it there when absent. */
export function ensureTemporalCli(explicitPath: string | undefined, logger: Logger): string {
  if (explicitPath) {
    if (!fs.existsSync(explicitPath)) throw new TemporalCliMissingError(`TEMPORAL_CLI points at ${explicitPath}, which does not exist.`);
    return explicitPath;
  }
  const found = onPath('temporal') ?? (fs.existsSync(localCli) ? localCli : undefined);
  if (found) return found;
  logger.info('the Temporal CLI is missing: running scripts/install-temporal.sh');
  const result = spawnSync('bash', [installScript], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0 || !fs.existsSync(localCli)) {
    throw new TemporalCliMissingError(
      'The Temporal CLI is not installed and scripts/install-temporal.sh could not install it (see its message above). ' +
      'Install it by hand, or set TEMPORAL_ADDRESS to a running Temporal server.',
    );
  }
  return localCli;
}

export interface TemporalDevServer {
  address: string;
  uiUrl: string;
  stop(): Promise<void>;
}

function readPid(file: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** A dev server left behind by a process that was killed hard still holds the ports and the state file. */
function stopLeftover(pidFile: string, logger: Logger): void {
  const pid = readPid(pidFile);
  if (pid === undefined) return;
  let cmdline = '';
  try {
    cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    // gone, or not Linux: nothing we can safely identify
  }
  if (cmdline.includes('temporal') && cmdline.includes('start-dev')) {
    logger.warn({ pid }, 'stopping a Temporal dev server left behind by an earlier run');
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  fs.rmSync(pidFile, { force: true });
}

/** How many of the server's last output lines an early exit quotes: its reason is in them. */
const QUOTED_LINES = 10;

async function waitUntilServing(address: string, child: ChildProcess, output: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`the Temporal dev server exited with code ${child.exitCode}: ${output.slice(-QUOTED_LINES).join(' | ') || 'it said nothing'}`);
    }
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await connection.workflowService.describeNamespace({ namespace: 'default' });
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  throw new Error(`the Temporal dev server did not answer on ${address} within ${timeoutMs} ms: ${String(lastError)}`);
}

/**
 * Runs `temporal server start-dev` as a child process with the search attributes the workflows use.
 * `dbFile` keeps its state across restarts; without it the state is in memory (tests).
 */
export async function startTemporalDevServer(options: {
  cliPath: string;
  port: number;
  uiPort: number;
  dbFile?: string;
  pidFile?: string;
  logger: Logger;
}): Promise<TemporalDevServer> {
  const { logger } = options;
  if (options.pidFile) stopLeftover(options.pidFile, logger);
  const args = [
    'server', 'start-dev',
    '--ip', '127.0.0.1',
    '--port', String(options.port),
    '--ui-port', String(options.uiPort),
    '--log-level', 'warn',
    ...(options.dbFile ? ['--db-filename', options.dbFile] : []),
    ...searchAttributeFlags.flatMap((flag) => ['--search-attribute', flag]),
  ];
  const child = spawn(options.cliPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  if (options.pidFile && child.pid) fs.writeFileSync(options.pidFile, String(child.pid));
  const childLogger = logger.child({ component: 'temporal-dev-server' });
  const output: string[] = [];
  const forward = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      childLogger.debug(line.trim());
      output.push(line.trim());
      if (output.length > QUOTED_LINES) output.shift();
    }
  };
  child.stdout?.on('data', forward);
  child.stderr?.on('data', forward);
  // A crash of this process must not leave the server running: 'exit' handlers may only do synchronous work.
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);

  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const address = `127.0.0.1:${options.port}`;
  const stop = async () => {
    process.off('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    if (options.pidFile) fs.rmSync(options.pidFile, { force: true });
  };
  try {
    await waitUntilServing(address, child, output, 60_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { address, uiUrl: `http://127.0.0.1:${options.uiPort}`, stop };
}
