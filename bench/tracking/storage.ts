/**
 * `npm run bench:tracking-storage`: what it costs to hold packages under tracking, measured rather
 * than guessed. Compares (a) one delayed BullMQ job per package in Redis with (b) one row per
 * package in PostgreSQL claimed in batches (what Doorstep does), at N packages, and times the
 * claim query on a large table. Uses a private redis-server and PGlite, or with DATABASE_URL a
 * scratch database of its own on that server (created, then dropped).
 *
 * Why a scratch database and not rows in DATABASE_URL's own: the rows had to be removed again, and
 * `delete from orders` checks every table that references orders(id) for each deleted row.
 * `idempotency_keys.order_id` has no index (nothing in production hard-deletes an order; they are
 * soft-deleted with `deleted_at`), so each deleted order read that table whole: in `npm run bench`,
 * after the webhook steps had created a few hundred thousand orders with idempotency keys, removing
 * 100,000 packages' orders took hours (4.2 ms per order at 100,000 keys, growing with them). Dropping
 * a database costs nothing per row, and the figures no longer depend on what else the server holds.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import { scratchDatabase } from '../support/scratch-database.ts';
import { openPglite, openPostgres } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { createLogger } from '../../src/logger.ts';
import { startPrivateRedis } from '../../src/redis/private-redis.ts';
import { claimDueTrackings } from '../../src/tracking/trackings.ts';

const packages = Number(process.argv[2] ?? 100_000);
const logger = createLogger('silent');

async function redisCostPerPackage(): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-bench-redis-'));
  const redis = await startPrivateRedis(dir, logger);
  const client = new Redis(redis.url);
  const queue = new Queue('tracking-ups', { connection: client });
  const before = Number(/used_memory:(\d+)/.exec(await client.info('memory'))![1]);
  const sample = Math.min(packages, 20_000);
  for (let i = 0; i < sample; i += 1_000) {
    await queue.addBulk(
      Array.from({ length: 1_000 }, (_, j) => ({
        name: 'poll',
        data: {
          orderId: `ord_${(i + j).toString(16).padStart(24, '0')}`,
          carrier: 'ups',
          trackingNumber: '1Z5R89390357567127',
        },
        opts: { jobId: `poll-ord_${i + j}`, delay: 3_600_000 + j },
      })),
    );
  }
  const after = Number(/used_memory:(\d+)/.exec(await client.info('memory'))![1]);
  await queue.close();
  client.disconnect();
  await redis.stop();
  fs.rmSync(dir, { recursive: true, force: true });
  return (after - before) / sample;
}

async function postgresCost(): Promise<{ bytesPerPackage: number; claimMs: number; kind: string }> {
  const scratch = process.env.DATABASE_URL ? await scratchDatabase(process.env.DATABASE_URL, 'storage') : undefined;
  const handle = scratch ? await openPostgres(scratch.url) : await openPglite(undefined);
  const db = handle.db;
  try {
    await migrateToLatest(db);
    await db
      .insertInto('accounts')
      .values({ id: 'acc_bench', name: 'bench', app_id: 'app_bench', api_key_hash: 'x' })
      .onConflict((oc) => oc.doNothing())
      .execute();
    await sql`
      insert into orders (id, account_id, uuid, status, name, email, recipient_name, recipient_email, send_method, send_trigger, created_at, updated_at, carrier, tracking_number)
      select 'ord_b' || g, 'acc_bench', gen_random_uuid(), 'recorded', 'A', 'a@example.com', 'B', 'b@example.com', 'email', 'package', now(), now(), 'fedex', '98657878' || g
      from generate_series(1, ${packages}) g`.execute(db);
    const beforeBytes = Number(
      (await sql<{ size: string }>`select pg_total_relation_size('trackings')::text as size`.execute(db)).rows[0]!.size,
    );
    await sql`
      insert into trackings (order_id, account_id, carrier, tracking_number, started_at, next_poll_at, updated_at, status, last_polled_at, estimated_delivery_at)
      select 'ord_b' || g, 'acc_bench', 'fedex', '98657878' || g, now(), now() + (g % 86400) * interval '1 second', now(), 'in_transit', now(), now() + interval '2 days'
      from generate_series(1, ${packages}) g`.execute(db);
    await sql`analyze trackings`.execute(db);
    const afterBytes = Number(
      (await sql<{ size: string }>`select pg_total_relation_size('trackings')::text as size`.execute(db)).rows[0]!.size,
    );
    // Claim 10 batches of 30 among the due ones (due: roughly packages/86400 per second of "now").
    const started = performance.now();
    for (let i = 0; i < 10; i++) await claimDueTrackings(db, 'fedex', 30, new Date(Date.now() + 3_600_000), 600_000);
    const claimMs = (performance.now() - started) / 10;
    return { bytesPerPackage: (afterBytes - beforeBytes) / packages, claimMs, kind: handle.kind };
  } finally {
    await handle.close();
    await scratch?.drop();
  }
}

const redisBytes = await redisCostPerPackage();
const pg = await postgresCost();
const million = (bytes: number) => `${((bytes * 1_000_000) / 1024 / 1024 / 1024).toFixed(2)} GiB`;
console.log(`| design | per package | at 1,000,000 packages |`);
console.log(`|---|---:|---:|`);
console.log(
  `| one delayed BullMQ job per package (Redis memory) | ${Math.round(redisBytes)} B | ${million(redisBytes)} of Redis RAM |`,
);
console.log(
  `| one row per package in PostgreSQL (${pg.kind}, table + indexes, ${packages.toLocaleString()} rows) | ${Math.round(pg.bytesPerPackage)} B | ${million(pg.bytesPerPackage)} of disk |`,
);
console.log(
  `\nClaiming a batch of 30 due packages among ${packages.toLocaleString()}: ${pg.claimMs.toFixed(1)} ms per claim (${pg.kind}).`,
);
