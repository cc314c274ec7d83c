/**
 * `node --import tsx bench/hotpath/idle-scans.ts [rows] [seconds]`: what the service's workers read
 * whole on a seeded database while no request arrives. Seeds the bench's large tables (default
 * 1,000,000 rows each), starts the service as the bench does, leaves it idle (default 130 s: two
 * reconciler rounds) and prints PostgreSQL's sequential scans per table over that time. A seeded
 * table with a large `seq_tup_read` is a periodic query no index serves.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openPostgres } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { createLogger } from '../../src/logger.ts';
import { freePort } from '../../src/net/free-port.ts';
import { startPrivateRedis } from '../../src/redis/private-redis.ts';
import { startPostgres } from '../support/postgres.ts';
import { seedLargeTables } from '../support/seed.ts';
import { startBenchService } from '../support/service.ts';

const rows = Number(process.argv[2] ?? 1_000_000);
const idleSeconds = Number(process.argv[3] ?? 130);
const postgres = await startPostgres();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-idle-'));
const redis = await startPrivateRedis(path.join(dataDir, 'redis'), createLogger('silent'));
const handle = await openPostgres(postgres.url);
await migrateToLatest(handle.db);
await handle.close();
const pool = new pg.Pool({ connectionString: postgres.url, max: 2 });
try {
  await seedLargeTables(async (statement) => (await pool.query<Record<string, unknown>>(statement)).rows, rows);
  const { child } = await startBenchService({
    port: await freePort(),
    databaseEnv: postgres.doorstepEnv,
    redisUrl: redis.url,
    dataDir,
  });
  // Counted from here: the start's one-off work (migrations, the token re-seal) is not the idle cost.
  await pool.query('select pg_stat_reset()');
  await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
  const stats = await pool.query(
    `select relname as table, seq_scan, seq_tup_read, idx_scan from pg_stat_user_tables
      where seq_scan > 0 order by seq_tup_read desc limit 20`,
  );
  process.stdout.write(`sequential scans over ${idleSeconds} s of an idle service on ${rows} rows a table:\n`);
  console.table(stats.rows);
  await child.stop();
} finally {
  await pool.end();
  await redis.stop();
  postgres.stop();
}
