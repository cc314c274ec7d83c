import pg from 'pg';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { openPostgres } from '../../src/db/database.ts';
import { eventually } from '../support/workers.ts';
import { openTestDatabase, usingRealPostgres } from '../support/database.ts';

// About pg's connection pool: on the embedded PGlite pass there is no server to drop a connection.
it.skipIf(!usingRealPostgres)('survives the server closing an idle pooled connection, and reconnects', async () => {
  const database = await openTestDatabase();
  const lost: Error[] = [];
  const handle = await openPostgres(database.url!, { onIdleConnectionLost: (error) => lost.push(error) });
  try {
    const pid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(handle.db)).rows[0]!.pid;
    // What a server restart or an administrator does to an idle connection.
    const admin = new pg.Client({ connectionString: database.url! });
    await admin.connect();
    await admin.query('select pg_terminate_backend($1)', [pid]);
    await admin.end();
    await eventually(async () => (lost.length > 0 ? true : undefined), 5_000, 'the pool to notice');
    expect((lost[0] as Error & { code?: string }).code).toBe('57P01');
    expect((await sql<{ one: number }>`select 1 as one`.execute(handle.db)).rows[0]!.one).toBe(1);
  } finally {
    await handle.close();
    await database.close();
  }
});
