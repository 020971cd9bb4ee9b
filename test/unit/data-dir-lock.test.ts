import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireDataDirLock, DataDirLockedError } from '../../src/db/data-dir-lock.ts';

describe('acquireDataDirLock', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-lock-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes the owner pid and removes the lock on release', () => {
    const dir = tempDir();
    const release = acquireDataDirLock(dir);
    expect(fs.readFileSync(path.join(dir, 'parley.lock'), 'utf8')).toBe(String(process.pid));
    release();
    expect(fs.existsSync(path.join(dir, 'parley.lock'))).toBe(false);
  });

  it('refuses a directory held by another live process, naming its pid', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'parley.lock'), String(process.ppid));
    expect(() => acquireDataDirLock(dir)).toThrow(DataDirLockedError);
    expect(() => acquireDataDirLock(dir)).toThrow(`in use by a running Parley process (pid ${process.ppid})`);
  });

  it('takes over a lock left by a process that has died', () => {
    const dir = tempDir();
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    fs.writeFileSync(path.join(dir, 'parley.lock'), dead);
    const release = acquireDataDirLock(dir);
    expect(fs.readFileSync(path.join(dir, 'parley.lock'), 'utf8')).toBe(String(process.pid));
    release();
  });

  it.runIf(process.platform === 'linux')('takes over a lock whose owner is a zombie nobody reaped', async () => {
    const dir = tempDir();
    // The shell's background child outlives its exit as a zombie: the `sleep` the shell becomes never waits for it.
    const parent = spawn('sh', ['-c', 'sleep 0.05 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const zombie = await new Promise<string>((resolve) => parent.stdout.once('data', (data: Buffer) => resolve(data.toString().trim())));
      await expect.poll(() => fs.readFileSync(`/proc/${zombie}/stat`, 'utf8').split(') ')[1]?.[0]).toBe('Z');
      fs.writeFileSync(path.join(dir, 'parley.lock'), zombie);
      const release = acquireDataDirLock(dir);
      expect(fs.readFileSync(path.join(dir, 'parley.lock'), 'utf8')).toBe(String(process.pid));
      release();
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
