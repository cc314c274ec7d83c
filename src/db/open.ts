import { ConfigError, redactUrl, type Config } from '../config.ts';
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
    if (config.databaseUrl && isUnreachable(error))
      throw new ConfigError(
        `DATABASE_URL (${redactUrl(config.databaseUrl)}) cannot be used: ${(error as Error).message}. ` +
          'Check the host, port, database name and credentials, and that PostgreSQL is running there — or unset DATABASE_URL to use the embedded database.',
      );
    throw error;
  }
  return handle;
}

/**
 * The first statement failing for want of a server (DNS, refused, timed out) or of a login
 * (SQLSTATE 28: wrong password; 3D000: no such database): a setting to fix, not a bug.
 */
function isUnreachable(error: unknown): boolean {
  const code = String((error as { code?: unknown } | null)?.code ?? '');
  return (
    ['ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', '3D000'].includes(code) ||
    code.startsWith('28')
  );
}
