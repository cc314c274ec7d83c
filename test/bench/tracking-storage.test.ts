import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runToEnd } from '../../bench/support/children.ts';
import { openPostgres } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { startPostgresServer, type PostgresServer } from '../support/postgres-server.ts';

/**
 * bench/tracking/storage.ts once added and hard-deleted its packages' orders in DATABASE_URL's own
 * database; each deleted order's foreign-key check read idempotency_keys whole, and in `npm run bench`
 * (after the webhook steps) the step never finished. It now measures in a scratch database.
 */
let postgres: PostgresServer;
let client: pg.Client;

beforeAll(async () => {
  postgres = await startPostgresServer();
  const handle = await openPostgres(postgres.url);
  await migrateToLatest(handle.db);
  await handle.close();
  client = new pg.Client({ connectionString: postgres.url });
  await client.connect();
  // Others' orders with idempotency keys, as the webhook steps leave them.
  await client.query(`insert into accounts (id, name, app_id, api_key_hash) values ('acc_other', 'o', 'app_o', 'x')`);
  await client.query(`
    insert into orders (id, account_id, uuid, status, name, email, recipient_name, recipient_email, send_method, send_trigger, created_at, updated_at)
    select 'ord_o' || g, 'acc_other', gen_random_uuid(), 'recorded', 'A', 'a@example.com', 'B', 'b@example.com', 'email', 'package', now(), now()
    from generate_series(1, 20000) g`);
  await client.query(`
    insert into idempotency_keys (account_id, key, request_hash, order_id)
    select 'acc_other', 'k' || g, 'h', 'ord_o' || g from generate_series(1, 20000) g`);
}, 60_000);

afterAll(async () => {
  await client?.end();
  postgres?.destroy();
});

it('measures in a scratch database it drops, leaving DATABASE_URL’s own rows alone', async () => {
  const started = Date.now();
  const printed = await runToEnd('bench/tracking/storage.ts', ['3000'], { DATABASE_URL: postgres.url }, 90_000);
  expect(printed).toMatch(/Claiming a batch of 30 due packages among 3,000: [\d.]+ ms per claim \(postgres\)/);
  // The old cleanup deleted 3,000 orders at a scan of 20,000 keys each: well over this.
  expect(Date.now() - started).toBeLessThan(60_000);
  const { rows: orders } = await client.query<{ n: string }>('select count(*)::text as n from orders');
  expect(orders[0]!.n).toBe('20000');
  // Its own account never existed here: it worked elsewhere.
  const { rows: accounts } = await client.query<{ id: string }>('select id from accounts order by id');
  expect(accounts.map((a) => a.id)).toEqual(['acc_other']);
  const { rows: databases } = await client.query<{ datname: string }>(
    `select datname from pg_database where datname like 'doorstep_storage%'`,
  );
  expect(databases).toEqual([]);
}, 120_000);
