/**
 * Issue 11, "cut the per-request work": each change measured against what it replaced, in one run,
 * in this process (ratios are what count on a shared machine). On the embedded PGlite, or on the
 * PostgreSQL at DATABASE_URL (`scripts/with-postgres.sh node_modules/.bin/node --import tsx
 * bench/hotpath/per-request.ts`).
 *
 *   npm run bench:hotpath            (PGlite)
 */
import '@shopify/shopify-api/adapters/node';
import { ApiVersion, LogSeverity, shopifyApi } from '@shopify/shopify-api';
import { createHmac } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sql } from 'kysely';
import { authenticate, authenticateCached, createAccount, type Account } from '../../src/accounts/accounts.ts';
import { ApiKeyCache } from '../../src/accounts/api-key-cache.ts';
import { openPglite, openPostgres } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { orderQuery, orderWithTimelineQuery } from '../../src/orders/service.ts';
import { timelineQuery } from '../../src/orders/timeline.ts';
import { webhookVerifier } from '../../src/shopify/intake/webhook-hmac.ts';

const DURATION_MS = Number(process.env.BENCH_MS ?? 2_000);

/** Runs `work` back to back for DURATION_MS; operations per second. */
async function rate(work: () => Promise<unknown> | unknown): Promise<number> {
  for (let i = 0; i < 50; i++) await work(); // warm up
  let count = 0;
  const start = performance.now();
  while (performance.now() - start < DURATION_MS) {
    await work();
    count++;
  }
  return (count * 1000) / (performance.now() - start);
}

function line(what: string, before: number, after: number): string {
  return `| ${what} | ${Math.round(before).toLocaleString('en')} | ${Math.round(after).toLocaleString('en')} | ${(after / before).toFixed(2)}× |`;
}

async function main(): Promise<void> {
  const rows: string[] = [];

  // Webhook HMAC: the library's validate against ours, on the same signed request.
  const secret = 'shpss_bench_secret';
  const library = shopifyApi({
    apiKey: 'bench',
    apiSecretKey: secret,
    scopes: [],
    hostName: 'doorstep.test',
    apiVersion: ApiVersion.July26,
    isEmbeddedApp: true,
    logger: { level: LogSeverity.Error, log: async () => {} },
  });
  const body = JSON.stringify({ id: 1, line_items: Array.from({ length: 5 }, (_, i) => ({ id: i, title: 'Gift' })) });
  const headers = {
    'content-type': 'application/json',
    'x-shopify-topic': 'orders/create',
    'x-shopify-hmac-sha256': createHmac('sha256', secret).update(body).digest('base64'),
    'x-shopify-shop-domain': 'bench.myshopify.com',
    'x-shopify-api-version': '2026-07',
    'x-shopify-webhook-id': 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043',
    'x-shopify-triggered-at': new Date().toISOString(),
  };
  const rawRequest = { headers, method: 'POST', url: '/shopify/webhooks' } as unknown as IncomingMessage;
  const rawResponse = {} as ServerResponse;
  const verify = webhookVerifier(secret);
  const libraryRate = await rate(async () => {
    if (!(await library.webhooks.validate({ rawBody: body, rawRequest, rawResponse })).valid)
      throw new Error('invalid');
  });
  const oursRate = await rate(() => {
    if (!verify(body, headers).valid) throw new Error('invalid');
  });
  rows.push(line('webhook check (checks/s, one thread)', libraryRate, oursRate));

  // The database: PostgreSQL when DATABASE_URL is set, else PGlite in memory.
  const handle = process.env.DATABASE_URL ? await openPostgres(process.env.DATABASE_URL) : await openPglite(undefined);
  const { db } = handle;
  try {
    await migrateToLatest(db);
    const { account, apiKey } = await createAccount(db, { name: 'Bench store' });
    const cache = new ApiKeyCache<Account>();
    const uncached = await rate(async () => {
      if (!(await authenticate(db, account.appId, apiKey))) throw new Error('refused');
    });
    const cached = await rate(async () => {
      if (!(await authenticateCached(db, cache, account.appId, apiKey))) throw new Error('refused');
    });
    rows.push(line('API key check (checks/s)', uncached, cached));

    // An order with a timeline of eight entries, read the old way (order, then events) and in one statement.
    const orderId = 'ord_bench';
    await sql`insert into orders (id, account_id, uuid, status, name, email, recipient_name, send_method, send_trigger, created_at, updated_at)
      values (${orderId}, ${account.id}, gen_random_uuid(), 'created', 'A', 'a@example.com', 'B', 'email', 'package', now(), now())`.execute(
      db,
    );
    await sql`insert into order_events (order_id, account_id, type, source, data, created_at)
      select ${orderId}, ${account.id}, 'order.updated', 'api', '{"price": 100}'::jsonb, now() from generate_series(1, 8)`.execute(
      db,
    );
    const twoTrips = await rate(async () => {
      await orderQuery(db, account.id, orderId).executeTakeFirstOrThrow();
      await timelineQuery(db, orderId).execute();
    });
    const oneTrip = await rate(async () => {
      await orderWithTimelineQuery(db, account.id, orderId).executeTakeFirstOrThrow();
    });
    rows.push(line('order + timeline (reads/s)', twoTrips, oneTrip));
  } finally {
    await handle.close();
  }

  process.stdout.write(
    [
      `Per-request work, ${handle.kind}, ${DURATION_MS} ms each, load average ${(await import('node:os')).loadavg()[0]!.toFixed(2)}`,
      '',
      '| What | Before | After | After / before |',
      '|---|---|---|---|',
      ...rows,
      '',
    ].join('\n'),
  );
}

await main();
