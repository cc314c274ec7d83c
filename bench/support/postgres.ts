import { spawnSync } from 'node:child_process';
import { startPostgresServer } from '../../test/support/postgres-server.ts';

export interface BenchPostgres {
  url: string;
  /** Its data directory, for stopping it from another process (test/support/postgres-server.ts). */
  dataDir: string;
  /** DATABASE_URL and the Shopify token key required with it, for a Doorstep process (postgres-server.ts). */
  doorstepEnv: { DATABASE_URL: string; TOKEN_ENCRYPTION_KEY: string };
  version: string;
  stop(): void;
}

/**
 * A private PostgreSQL server for one bench run (test/support/postgres-server.ts, the tests' own), but
 * with fsync ON: the issue's figures are for a database that really flushes its commits, and the PUT
 * floor is bound by exactly that. Enough memory that the seeded tables' indexes stay cached, as they
 * would on a real server, and pg_stat_statements loaded (Debian's postgresql-15 ships it) so the
 * large-table comparison can count buffers per request. `npm run soak` starts one too, with `fsync: false` as the tests' server
 * has: it measures correctness, not commit cost.
 */
export async function startPostgres(options: { fsync?: boolean } = {}): Promise<BenchPostgres> {
  const server = await startPostgresServer({
    fsync: options.fsync ?? true,
    // pg_stat_statements counts the buffers each request touches (support/buffers.ts); room for every statement the service runs.
    settings: ['shared_buffers=256MB', 'shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.max=10000'],
  });
  const version = spawnSync('postgres', ['--version'])
    .stdout.toString()
    .trim()
    .replace(/^postgres \(PostgreSQL\) /, '');
  return {
    url: server.url,
    dataDir: server.dataDir,
    doorstepEnv: server.doorstepEnv,
    version: `PostgreSQL ${version}`,
    stop: server.destroy,
  };
}
