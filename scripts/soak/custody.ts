import fs from 'node:fs';
import { stopPostgresAt } from '../../test/support/postgres-server.ts';

/**
 * What a soak run started that a signal to its process group does not reach, and what it is doing
 * now, written down (synchronously, one JSON line each) the moment it happens, so that the
 * supervisor (scripts/soak.ts) can stop it and say where the run was, whatever state the run itself
 * is in: passed, failed, hung with its event loop blocked, or killed.
 *
 * - `postgres`: a throw-away server's data directory (pg_ctl puts the postmaster in a session of
 *   its own);
 * - `dir`: a temporary directory to remove;
 * - `phase`: what the run is doing or waiting for, for the hard deadline's message.
 */
export type CustodyEntry = { postgres: string } | { dir: string } | { phase: string };

export const CUSTODY_FILE_ENV = 'SOAK_CUSTODY_FILE';

/** The run's side: appends entries to the file the supervisor named (nothing when run without one). */
export function recordCustody(entry: CustodyEntry): void {
  const file = process.env[CUSTODY_FILE_ENV];
  if (file) fs.appendFileSync(file, `${JSON.stringify(entry)}\n`);
}

export function readCustody(file: string): CustodyEntry[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as CustodyEntry];
      } catch {
        // A line cut short by a kill mid-write: what it named was not started yet.
        return [];
      }
    });
}

/** The last phase the run recorded. */
export function lastPhase(entries: CustodyEntry[]): string | undefined {
  return entries.flatMap((entry) => ('phase' in entry ? [entry.phase] : [])).at(-1);
}

/** Stops every PostgreSQL and removes every directory in `entries` (each at most once; idempotent). */
export function releaseCustody(entries: CustodyEntry[]): void {
  for (const entry of entries) if ('postgres' in entry) stopPostgresAt(entry.postgres);
  for (const entry of entries) if ('dir' in entry) fs.rmSync(entry.dir, { recursive: true, force: true });
}
