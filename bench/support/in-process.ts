import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { loadConfig, type Config } from '../../src/config.ts';
import type { DatabaseHandle } from '../../src/db/database.ts';
import { openConfiguredDatabase } from '../../src/db/open.ts';
import type { Logger } from '../../src/logger.ts';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/private-redis.ts';

/**
 * What a bench script that runs the system in its own process starts before the services: a data
 * directory, the configuration (the environment plus `env`), a private redis-server and the configured
 * database, migrated. `fsync` turns PostgreSQL's fsync back on (test:postgres runs it off), so commits
 * cost what they cost in production. `stop` undoes all of it but the database, which the caller closes.
 */
export async function startInProcessBase(options: {
  name: string;
  env: Record<string, string>;
  fsync: boolean;
  logger: Logger;
}): Promise<{ dataDir: string; config: Config; redis: PrivateRedis; database: DatabaseHandle; stop(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `doorstep-bench-${options.name}-`));
  const baseConfig = loadConfig({ ...process.env, DATA_DIR: dataDir, PUBLIC_URL: 'http://127.0.0.1', ...options.env });
  const redis = await startPrivateRedis(path.join(dataDir, 'redis'), options.logger);
  const config = { ...baseConfig, redisUrl: redis.url };
  const database = await openConfiguredDatabase(config, options.logger);
  if (options.fsync && database.kind === 'postgres') {
    await sql`alter system set fsync = on`.execute(database.db);
    await sql`select pg_reload_conf()`.execute(database.db);
  }
  return {
    dataDir,
    config,
    redis,
    database,
    stop: async () => {
      await redis.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
