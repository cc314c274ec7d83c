import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * DATA_DIR and what is under it hold the database, videos, the outbox (capability URLs, addresses)
 * and generated secrets: only this process's user may read them. An existing directory made with
 * wider permissions (before this rule) is narrowed too.
 */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
}

/**
 * A secret the embedded defaults keep in DATA_DIR (the operator's password, the token key): read from
 * `DATA_DIR/name`, or generated once and kept there, readable by its owner only. Written whole to a
 * file of its own, then linked into place: two processes starting at once never overwrite each
 * other's secret, and neither reads a half-written one — the loser reads the winner's.
 */
export function readOrCreateSecretFile(
  dataDir: string,
  name: string,
  generate: () => string,
): { text: string; file: string; generated: boolean } {
  const file = path.join(dataDir, name);
  ensurePrivateDir(dataDir);
  for (;;) {
    try {
      return { text: fs.readFileSync(file, 'utf8'), file, generated: false };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const text = `${generate()}\n`;
    const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    fs.writeFileSync(draft, text, { mode: 0o600, flag: 'wx' });
    try {
      fs.linkSync(draft, file);
      return { text, file, generated: true };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      fs.rmSync(draft, { force: true });
    }
  }
}
