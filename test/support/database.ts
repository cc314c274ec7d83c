import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openPglite, openPostgres, type DatabaseHandle } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';

export interface TestDatabase extends DatabaseHandle {
  /** On PostgreSQL, this database's connection string (for a second pool, or a child process). */
  url: string | undefined;
}

/**
 * The database integration tests run on: a database of its own on the PostgreSQL server at
 * DATABASE_URL when set (CI's second pass), else a fresh in-memory PGlite. Own, not shared: the
 * dispatcher, the tracking claims and the reconcilers work on every row, not one account's, so in a
 * shared database one test file's clock (often days ahead of real time) would claim, send or mark
 * uncertain another file's messages and packages. Closing it drops it.
 */
export async function openTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const handle = await openPglite(undefined);
    await migrateToLatest(handle.db);
    return { ...handle, url: undefined };
  }
  const name = `doorstep_test_${randomBytes(8).toString('hex')}`;
  await onServer(serverUrl, `create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const handle = await openPostgres(url.toString());
  await migrateToLatest(handle.db);
  return {
    ...handle,
    url: url.toString(),
    close: async () => {
      await handle.close();
      // FORCE: a pool a test opened itself and left open must not keep the database alive.
      await onServer(serverUrl, `drop database ${name} with (force)`);
    },
  };
}

/** CREATE and DROP DATABASE run outside a transaction, on a connection of their own. */
export async function onServer(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export const usingRealPostgres = Boolean(process.env.DATABASE_URL);
