import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireDataDirLock, dataDirHolder, DataDirLockedError, lockFilePath } from '../../src/db/data-dir-lock.ts';
import { openPglite } from '../../src/db/database.ts';
import { projectRoot } from '../support/processes.ts';

/** The lock is about processes, so the other holder is a real one (test/db/fixtures/hold-data-dir-lock.ts). */
interface Holder {
  child: ChildProcess;
  pid: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-lock-test-'));
  dirs.push(dir);
  return dir;
}

/** Starts a process that takes the lock; resolves once it says it holds it. */
async function holdInChild(dir: string): Promise<Holder> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/db/fixtures/hold-data-dir-lock.ts', dir], {
    cwd: projectRoot,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const line = await Promise.race([
    new Promise<string>((resolve) => readline.createInterface({ input: child.stdout! }).once('line', resolve)),
    exited.then(({ code }) =>
      Promise.reject(new Error(`the lock holder exited with ${code} before taking the lock:\n${stderr}`)),
    ),
  ]);
  expect(line).toBe(`locked ${child.pid}`);
  return { child, pid: child.pid!, exited };
}

describe('the data-directory lock', () => {
  it('refuses a second holder while the first process lives, naming it; the first one’s release frees the directory', async () => {
    const dir = dataDir();
    const holder = await holdInChild(dir);
    expect(fs.readFileSync(lockFilePath(dir), 'utf8')).toBe(String(holder.pid));
    expect(dataDirHolder(dir)).toBe(holder.pid);

    let refused: unknown;
    try {
      acquireDataDirLock(dir);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(DataDirLockedError);
    expect(refused).toMatchObject({
      dataDir: dir,
      pid: holder.pid,
      message: expect.stringContaining(`in use by process ${holder.pid}`),
    });
    // What the server and the CLI actually call: the embedded database will not open.
    await expect(openPglite(dir)).rejects.toBeInstanceOf(DataDirLockedError);
    // The refused attempts left the holder's lock as it was.
    expect(fs.readFileSync(lockFilePath(dir), 'utf8')).toBe(String(holder.pid));

    holder.child.stdin!.end();
    expect(await holder.exited).toEqual({ code: 0, signal: null });
    expect(fs.existsSync(lockFilePath(dir))).toBe(false);
    expect(dataDirHolder(dir)).toBeNull();
    acquireDataDirLock(dir).release();
  });

  it('takes over a stale lock left by a process that died holding it, and release removes it', async () => {
    const dir = dataDir();
    const holder = await holdInChild(dir);
    holder.child.kill('SIGKILL');
    expect(await holder.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // The dead process could not clean up: its pid is still in the file, but nobody holds it.
    expect(fs.readFileSync(lockFilePath(dir), 'utf8')).toBe(String(holder.pid));
    expect(dataDirHolder(dir)).toBeNull();

    const lock = acquireDataDirLock(dir);
    expect(fs.readFileSync(lockFilePath(dir), 'utf8')).toBe(String(process.pid));
    expect(dataDirHolder(dir)).toBe(process.pid);
    lock.release();
    expect(fs.existsSync(lockFilePath(dir))).toBe(false);
  });

  it('treats a live process it may not signal (EPERM) as a holder too', () => {
    // pid 1 always lives; as root kill(1, 0) succeeds, otherwise it fails with EPERM — held either way.
    const dir = dataDir();
    fs.writeFileSync(lockFilePath(dir), '1');
    expect(dataDirHolder(dir)).toBe(1);
    expect(() => acquireDataDirLock(dir)).toThrow(DataDirLockedError);
    expect(fs.readFileSync(lockFilePath(dir), 'utf8')).toBe('1');
  });

  it('takes over a lock naming its own pid (a restarted container gets the same pid) and ignores a garbled file', () => {
    const dir = dataDir();
    fs.writeFileSync(lockFilePath(dir), String(process.pid));
    acquireDataDirLock(dir).release();
    fs.writeFileSync(lockFilePath(dir), 'not a pid');
    expect(dataDirHolder(dir)).toBeNull();
    const lock = acquireDataDirLock(dir);
    expect(fs.readFileSync(lockFilePath(dir), 'utf8')).toBe(String(process.pid));
    lock.release();
    expect(fs.existsSync(lockFilePath(dir))).toBe(false);
  });

  it('release leaves a lock that is no longer its own', () => {
    const dir = dataDir();
    const lock = acquireDataDirLock(dir);
    // Someone took the directory over meanwhile (e.g. after deciding this process was gone).
    fs.writeFileSync(lockFilePath(dir), '1');
    lock.release();
    expect(fs.readFileSync(lockFilePath(dir), 'utf8')).toBe('1');
  });
});
