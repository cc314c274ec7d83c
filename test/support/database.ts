import { openPglite, openPostgres, type DatabaseHandle } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';

/**
 * The database integration tests run on: a real PostgreSQL server when DATABASE_URL is set (CI's
 * second pass), else a fresh in-memory PGlite. Tests isolate themselves by creating their own
 * accounts, so they can share one server database.
 */
export async function openTestDatabase(): Promise<DatabaseHandle> {
  const url = process.env.DATABASE_URL;
  const handle = url ? await openPostgres(url) : await openPglite(undefined);
  await migrateToLatest(handle.db);
  return handle;
}

export const usingRealPostgres = Boolean(process.env.DATABASE_URL);
