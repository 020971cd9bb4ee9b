import fs from 'node:fs';
import path from 'node:path';

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
  readonly dataDir: string;
  readonly pid: number;
  constructor(dataDir: string, pid: number) {
    super(
      `The embedded database in ${dataDir} is in use by a running Parley process (pid ${pid}). ` +
      'Stop that process first, or point DATABASE_URL at a PostgreSQL server that several processes can share.',
    );
    this.dataDir = dataDir;
    this.pid = pid;
  }
}

/**
 * Whether `pid` is a running process. A zombie (exited, never reaped by its parent) still answers signal 0, and
 * in a container without an init process nothing reaps a killed Parley, so on Linux its state in
 * `/proc/<pid>/stat` is read too: `Z` (zombie) or `X` (dead) is a process gone. Read once at start-up.
 */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !['Z', 'X'].includes(processState(pid) ?? '');
}

/** The state letter of `/proc/<pid>/stat` (after the command name in parentheses); undefined without /proc. */
function processState(pid: number): string | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  return stat.slice(stat.lastIndexOf(')') + 1).trim()[0];
}

/**
 * PGlite keeps its files open in one process only; a second process writing the same directory would
 * corrupt it. The lock is a file holding the owner's pid; a lock left by a process that has died (a zombie
 * included) is taken over.
 */
export function acquireDataDirLock(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const lockPath = path.join(dataDir, 'parley.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockPath, String(process.pid), { flag: 'wx' });
      return () => {
        if (fs.readFileSync(lockPath, 'utf8').trim() === String(process.pid)) fs.rmSync(lockPath, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(fs.readFileSync(lockPath, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
        throw new DataDirLockedError(dataDir, owner);
      }
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`Could not lock ${lockPath}.`);
}
