import fs from 'node:fs';
import path from 'node:path';

export interface DataDirLock {
  release(): void;
}

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`The embedded database in ${dataDir} is in use by process ${pid}.`);
  }
}

export function lockFilePath(dataDir: string): string {
  return path.join(dataDir, 'doorstep.pid');
}

/** The pid of the live process holding the data directory, or null when it is free. */
export function dataDirHolder(dataDir: string): number | null {
  let pid: number;
  try {
    pid = Number.parseInt(fs.readFileSync(lockFilePath(dataDir), 'utf8'), 10);
  } catch {
    return null;
  }
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else — still a holder.
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : null;
  }
}

/**
 * PGlite keeps its files under the data directory and has no multi-process locking of its own;
 * two processes opening it would corrupt it. A pid file, created exclusively, guards it; a file
 * left by a dead process is taken over.
 */
export function acquireDataDirLock(dataDir: string): DataDirLock {
  const file = lockFilePath(dataDir);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      return {
        release: () => {
          try {
            if (fs.readFileSync(file, 'utf8') === String(process.pid)) fs.unlinkSync(file);
          } catch {
            // Already gone: nothing to release.
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = dataDirHolder(dataDir);
      if (holder !== null && holder !== process.pid) throw new DataDirLockedError(dataDir, holder);
      fs.rmSync(file, { force: true });
    }
  }
  throw new Error(`Could not lock ${dataDir}`);
}
