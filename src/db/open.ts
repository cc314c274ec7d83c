import type { Config } from '../config.ts';
import { openPglite, openPostgres, type DatabaseHandle } from './database.ts';
import { migrateToLatest } from './migrate.ts';

/** The configured database — a real server when DATABASE_URL is set, else embedded PGlite — migrated. */
export async function openConfiguredDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Promise<DatabaseHandle> {
  const handle = config.databaseUrl ? await openPostgres(config.databaseUrl) : await openPglite(config.dataDir);
  try {
    await migrateToLatest(handle.db);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}
