import fs from 'node:fs';

/**
 * DATA_DIR and what is under it hold the database, videos, the outbox (capability URLs, addresses)
 * and generated secrets: only this process's user may read them. An existing directory made with
 * wider permissions (before this rule) is narrowed too.
 */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
}
