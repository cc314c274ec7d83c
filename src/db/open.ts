import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { openPglite, openPostgres, type DatabaseHandle } from './database.ts';
import { migrateToLatest } from './migrate.ts';

/** The configured database — a real server when DATABASE_URL is set, else embedded PGlite — migrated. */
export async function openConfiguredDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  logger?: Logger,
): Promise<DatabaseHandle> {
  const onIdleConnectionLost = (error: Error) =>
    logger?.warn({ err: error }, 'a pooled PostgreSQL connection was closed by the server; the next query reconnects');
  const handle = config.databaseUrl
    ? await openPostgres(config.databaseUrl, { onIdleConnectionLost })
    : await openPglite(config.dataDir);
  try {
    await migrateToLatest(handle.db);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}
