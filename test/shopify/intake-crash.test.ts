import pg from 'pg';
import { afterAll, beforeAll, expect, inject, it, onTestFailed } from 'vitest';
import { adminCommands } from '../../src/admin/commands.ts';
import { openPostgres } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { DEVELOPMENT_API_SECRET } from '../../src/shopify/config.ts';
import { fakeShopifyId, orderPayload, signedWebhook } from '../../src/shopify/dev/webhook-payloads.ts';
import { startPostgresServer, type PostgresServer } from '../support/postgres-server.ts';
import {
  freePort,
  outputWithoutAccessLog,
  startDoorstep,
  waitForExit,
  type DoorstepProcess,
  type RunningDoorstep,
} from '../support/processes.ts';
import { eventually } from '../support/workers.ts';

/**
 * The intake answers 200 once the receipt is committed and hands its job to Redis afterwards, in a
 * batch (src/shopify/intake/receipt-hand-off.ts). A web process killed between the two has answered for
 * receipts that have no job: the reconciler must find them in PostgreSQL and each must be processed
 * exactly once. Real processes: a web process (`WORKERS=off`) whose Redis is unreachable, so no
 * hand-off can succeed before it is SIGKILLed, and then a worker process on a working Redis.
 */
const SHOP = 'crash-store.myshopify.com';
let postgres: PostgresServer;
let doorstep: RunningDoorstep | undefined;
let db: pg.Client;
let web: DoorstepProcess | undefined;
let worker: DoorstepProcess | undefined;

beforeAll(async () => {
  postgres = await startPostgresServer();
  const handle = await openPostgres(postgres.url);
  await migrateToLatest(handle.db);
  await adminCommands(handle.db).run('shops.add', { shop: SHOP });
  await handle.close();
  db = new pg.Client({ connectionString: postgres.url });
  await db.connect();
}, 120_000);

afterAll(async () => {
  await db?.end();
  await doorstep?.stop();
  postgres?.destroy();
});

it('a web process killed before its receipts reached the queue: every answered webhook is processed once, by the reconciler', async () => {
  onTestFailed(() => {
    if (web) console.error(`web:\n${outputWithoutAccessLog(web, 6_000)}`);
    if (worker) console.error(`worker:\n${outputWithoutAccessLog(worker, 6_000)}`);
  });
  // Nothing listens on this port: every hand-off waits for a Redis that never comes.
  const deadRedis = `redis://127.0.0.1:${await freePort()}`;
  doorstep = await startDoorstep({
    name: 'intake-crash',
    env: {
      ...postgres.doorstepEnv,
      QUEUE_PREFIX: `intake-crash-${process.pid}`,
      METRICS_PORT: '0',
      WORKERS: 'off',
      REDIS_URL: deadRedis,
    },
  });
  web = doorstep.proc;
  const port = doorstep.env.PORT;

  const post = async (webhook: ReturnType<typeof signedWebhook>) => {
    const response = await fetch(`http://127.0.0.1:${port}/shopify/webhooks`, {
      method: 'POST',
      headers: webhook.headers,
      body: webhook.body,
    });
    return { status: response.status, body: (await response.json()) as { duplicate: boolean } };
  };
  const webhooks = Array.from({ length: 20 }, (_, i) =>
    signedWebhook(
      DEVELOPMENT_API_SECRET,
      SHOP,
      'orders/create',
      orderPayload({ id: fakeShopifyId(), lines: [{ id: fakeShopifyId(), recipientEmail: `r${i}@example.com` }] }),
    ),
  );
  // All answered 200 at once, without waiting on Redis.
  const answers = await Promise.all(webhooks.map(post));
  expect(answers.map((a) => a.status)).toEqual(webhooks.map(() => 200));
  // Shopify's retry of a delivery: answered 200, no second receipt.
  expect(await post(webhooks[0]!)).toEqual({ status: 200, body: { received: true, duplicate: true } });

  web.child.kill('SIGKILL');
  expect(await waitForExit(web.child, 10_000)).toMatchObject({ signal: 'SIGKILL' });
  const ids = webhooks.map((w) => w.webhookId);
  const { rows: stored } = await db.query<{ status: string }>(
    'select status from webhook_receipts where webhook_id = any($1)',
    [ids],
  );
  expect(stored.map((r) => r.status)).toEqual(ids.map(() => 'received'));

  // The reconciler hands over receipts still `received` after a minute; the test moves the receipts'
  // clock instead of waiting it out.
  await db.query(
    `update webhook_receipts set received_at = received_at - interval '2 minutes' where webhook_id = any($1)`,
    [ids],
  );
  worker = await doorstep.startWorker({ REDIS_URL: inject('redisUrl'), RECONCILE_EVERY_MS: '1000' });
  await eventually(
    async () => {
      const { rows } = await db.query<{ n: number }>(
        `select count(*)::int as n from webhook_receipts where webhook_id = any($1) and status = 'processed'`,
        [ids],
      );
      return rows[0]!.n === ids.length ? true : undefined;
    },
    60_000,
    'every answered webhook processed',
  );
  // Exactly once: one attempt each, one video order per Shopify order.
  const { rows: attempts } = await db.query<{ attempts: number }>(
    'select attempts from webhook_receipts where webhook_id = any($1)',
    [ids],
  );
  expect(attempts.map((r) => r.attempts)).toEqual(ids.map(() => 1));
  const { rows: links } = await db.query<{ n: number }>(
    'select count(*)::int as n from shopify_order_links where shop = $1',
    [SHOP],
  );
  expect(links[0]!.n).toBe(ids.length);
}, 180_000);
