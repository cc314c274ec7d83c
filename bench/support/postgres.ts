import { spawnSync } from 'node:child_process';
import { startPostgresServer } from '../../test/support/postgres-server.ts';

export interface BenchPostgres {
  url: string;
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
  return { url: server.url, doorstepEnv: server.doorstepEnv, version: `PostgreSQL ${version}`, stop: server.destroy };
}

/**
 * Waits until the server does nothing of its own: one CHECKPOINT (the seed's gigabytes of WAL are
 * otherwise flushed by a spread checkpoint during the first measurements) and no autovacuum worker
 * running in any database (the earlier steps' burst leaves tens of thousands of changed rows in the
 * main database, vacuumed whenever autovacuum gets to them). A guard, so that a slow first pair is
 * never the server's own work: in the run that added it, it waited 0.4 s, and the seeded side's
 * slowness turned out to be plans (src/db/filter-only.ts).
 * Returns how long it waited and how many autovacuum workers were still running at the limit.
 */
export async function settlePostgres(
  pool: { query<R extends object>(text: string): Promise<{ rows: R[] }> },
  limitSeconds: number,
): Promise<{ seconds: number; autovacuumsLeft: number }> {
  const started = performance.now();
  await pool.query('checkpoint');
  for (;;) {
    const { rows } = await pool.query<{ n: number }>(
      "select count(*)::int as n from pg_stat_activity where backend_type = 'autovacuum worker'",
    );
    const seconds = (performance.now() - started) / 1000;
    if (rows[0]!.n === 0 || seconds >= limitSeconds) return { seconds, autovacuumsLeft: rows[0]!.n };
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
