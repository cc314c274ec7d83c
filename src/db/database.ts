import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { PGliteDialect } from './pglite-dialect.ts';
import type { Database } from './schema.ts';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock.ts';
import { ensurePrivateDir } from '../process/private-dir.ts';

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  /** 'postgres' for a real server, 'pglite' for the embedded database. */
  kind: 'postgres' | 'pglite';
  close(): Promise<void>;
}

// bigint (int8) columns hold identity sequence values far below 2^53; read them as numbers so
// both drivers return the same type (PGlite already does).
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/**
 * `onIdleConnectionLost`: an idle pooled connection was closed by the server (a restart, an
 * administrator's terminate). The pool drops it and the next query connects anew; without a
 * listener Node would throw the pool's `error` event and stop the process.
 */
export async function openPostgres(
  databaseUrl: string,
  options: { onIdleConnectionLost?: (error: Error) => void } = {},
): Promise<DatabaseHandle> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  pool.on('error', options.onIdleConnectionLost ?? (() => {}));
  // The pool listens for errors only on idle clients. A client checked out between two statements
  // (a transaction doing JavaScript work, waiting for a carrier) that the server terminates (57P01
  // on `pg_ctl stop -m fast`) emits `error` with no listener, and Node stops the whole process
  // (test/process/postgres-restarts.test.ts). Its holder's next statement fails instead ("not
  // queryable", answered 503), and the pool drops the client when it is released.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, kind: 'postgres', close: () => db.destroy() };
}

/**
 * Opens the embedded database. `dataDir` undefined means in memory (tests). A data directory
 * belongs to one process at a time: a second opener would corrupt it, so it is locked.
 */
export async function openPglite(dataDir: string | undefined): Promise<DatabaseHandle> {
  let lock: DataDirLock | undefined;
  let pglite: PGlite;
  if (dataDir) {
    ensurePrivateDir(dataDir);
    lock = acquireDataDirLock(dataDir);
    pglite = new PGlite(path.join(dataDir, 'pglite'));
  } else {
    pglite = new PGlite();
  }
  await pglite.waitReady;
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
  return {
    db,
    kind: 'pglite',
    close: async () => {
      await db.destroy();
      await pglite.close();
      lock?.release();
    },
  };
}
