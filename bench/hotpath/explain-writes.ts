/**
 * Issue 11, "every scenario within 10% of the empty table": the plans PostgreSQL really ran for a
 * GET of an order, a PUT of its price, a PUT of a carrier and number and for an orders/create webhook
 * (its intake and its processing),
 * with EXPLAIN (ANALYZE, BUFFERS) of every statement, on a database seeded as `npm run bench` seeds
 * it. PostgreSQL's auto_explain writes each statement's plan to the server log, so what is shown is
 * the service's own statements, not copies of them; a Seq Scan of a seeded table is called out.
 *
 *   node --import tsx bench/hotpath/explain-writes.ts [rows]      (default 1,000,000)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createLogger } from '../../src/logger.ts';
import { freePort } from '../../src/net/free-port.ts';
import { startPrivateRedis } from '../../src/redis/private-redis.ts';
import { DEVELOPMENT_API_SECRET } from '../../src/shopify/config.ts';
import {
  fakeShopifyId,
  orderPayload,
  randomUpsTrackingNumber,
  signedWebhook,
} from '../../src/shopify/dev/webhook-payloads.ts';
import { basicAuthorization, installBenchShop, startBenchService } from '../support/service.ts';
import { startPostgres } from '../support/postgres.ts';
import { SEEDED_TABLES, seedLargeTables } from '../support/seed.ts';

const rows = Number(process.argv[2] ?? 1_000_000);
const SHOP = 'bench-store.myshopify.com';

const postgres = await startPostgres();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-explain-'));
const redis = await startPrivateRedis(path.join(dataDir, 'redis'), createLogger('silent'));
const pool = new pg.Pool({ connectionString: postgres.url, max: 2 });
try {
  const credentials = await installBenchShop(postgres.url, SHOP);
  const t = performance.now();
  await seedLargeTables(async (statement) => (await pool.query<Record<string, unknown>>(statement)).rows, rows);
  process.stderr.write(`seeded ${rows} rows per table in ${((performance.now() - t) / 1000).toFixed(0)} s\n`);
  // Every new session of this database logs the plan of each statement it runs, with timing and buffers.
  for (const setting of [
    "session_preload_libraries = 'auto_explain'",
    'auto_explain.log_min_duration = 0',
    'auto_explain.log_analyze = on',
    'auto_explain.log_buffers = on',
    'auto_explain.log_nested_statements = on',
  ])
    await pool.query(`alter database doorstep set ${setting}`);
  const { rows: dirRows } = await pool.query<{ data_directory: string }>('show data_directory');
  const logFile = path.join(path.dirname(dirRows[0]!.data_directory), 'server.log');

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // Its own rate limit and budgets as the bench's; the plans are what matter here.
  const { child } = await startBenchService({ port, databaseEnv: postgres.doorstepEnv, redisUrl: redis.url, dataDir });
  try {
    const authorization = basicAuthorization(credentials);
    const created = await fetch(`${base}/v1/orders`, {
      method: 'POST',
      headers: { Authorization: authorization, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        name: 'A',
        email: 'a@example.com',
        recipient_name: 'B',
        recipient_email: 'b@example.com',
      }),
    });
    const orderId = ((await created.json()) as { id: string }).id;
    // The work right after a create (the outbox's hand-over) must not be mistaken for the PUT's.
    await new Promise((resolve) => setTimeout(resolve, 1500));

    const sections: string[] = [];
    const between = async (name: string, work: () => Promise<void>) => {
      const from = fs.statSync(logFile).size;
      await work();
      // The hand-over after the commit and the log writes trail the answer a little.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const text = fs.readFileSync(logFile).subarray(from).toString();
      sections.push(`## ${name}\n\n${summarizePlans(text)}`);
    };
    await between('GET /v1/orders/{id}', async () => {
      const response = await fetch(`${base}/v1/orders/${orderId}`, { headers: { Authorization: authorization } });
      if (!response.ok) throw new Error(`GET answered ${response.status}: ${await response.text()}`);
    });
    await between('PUT price', async () => {
      const response = await fetch(`${base}/v1/orders/${orderId}`, {
        method: 'PUT',
        headers: { Authorization: authorization, 'Content-Type': 'application/json' },
        body: JSON.stringify({ price: 1250 }),
      });
      if (!response.ok) throw new Error(`PUT answered ${response.status}: ${await response.text()}`);
    });
    await between('PUT carrier + number', async () => {
      const response = await fetch(`${base}/v1/orders/${orderId}`, {
        method: 'PUT',
        headers: { Authorization: authorization, 'Content-Type': 'application/json' },
        body: JSON.stringify({ carrier: 'ups', tracking_number: randomUpsTrackingNumber() }),
      });
      if (!response.ok) throw new Error(`PUT answered ${response.status}: ${await response.text()}`);
    });
    await between('orders/create webhook: intake and processing', async () => {
      const webhook = signedWebhook(
        DEVELOPMENT_API_SECRET,
        SHOP,
        'orders/create',
        orderPayload({
          id: fakeShopifyId(),
          lines: [{ id: fakeShopifyId(), recipientName: 'R', recipientEmail: 'r@example.com', price: '12.00' }],
        }),
      );
      const response = await fetch(`${base}/shopify/webhooks`, {
        method: 'POST',
        headers: webhook.headers,
        body: webhook.body,
      });
      if (!response.ok) throw new Error(`the webhook answered ${response.status}`);
      for (let i = 0; i < 100; i++) {
        const { rows: left } = await pool.query(`select 1 from webhook_receipts where status = 'received'`);
        if (left.length === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('the webhook was not processed within 10 s');
    });
    process.stdout.write(
      `# Plans on ${rows.toLocaleString('en-US')} seeded rows per table\n\n${sections.join('\n\n')}\n`,
    );
  } finally {
    await child.stop();
  }
} finally {
  await pool.end();
  await redis.stop();
  postgres.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

/**
 * auto_explain's entries (`LOG:  duration: … plan:` then `Query Text: …` and the plan's lines):
 * for each, the statement's first line, its scans and its buffer counts, and a mark on a sequential
 * scan of a seeded table. Statements of the service's background ticks appear too; they are listed.
 */
function summarizePlans(log: string): string {
  const entries = log.split(/^.*LOG: {2}duration: /m).slice(1);
  const seqScans: string[] = [];
  const lines = entries.map((entry) => {
    const duration = entry.slice(0, entry.indexOf(' ms'));
    const query = queryText(entry);
    const scans = [
      ...entry.matchAll(/(Seq Scan|Index Scan|Index Only Scan|Bitmap Heap Scan)(?: using (\S+))? on (\S+)/g),
    ].map((m) => `${m[1]}${m[2] ? ` using ${m[2]}` : ''} on ${m[3]}`);
    const buffers = [...entry.matchAll(/Buffers: (.*)/g)].map((m) => m[1]!.trim());
    for (const m of entry.matchAll(/Seq Scan on (\S+)/g))
      if ((SEEDED_TABLES as readonly string[]).includes(m[1]!)) seqScans.push(`${m[1]} in: ${query}`);
    return `- ${duration} ms — \`${query}\`\n  - ${scans.join('; ') || 'no scan'}\n  - buffers (top node first): ${buffers[0] ?? 'none'}`;
  });
  return [
    seqScans.length === 0
      ? 'No sequential scan of a seeded table.'
      : `SEQUENTIAL SCANS OF SEEDED TABLES:\n${seqScans.map((s) => `- ${s}`).join('\n')}`,
    '',
    ...lines,
  ].join('\n');
}

/** The statement's text (it may span lines, up to the plan's first node), on one line and cut short. */
function queryText(entry: string): string {
  const lines = entry.split('\n');
  const start = lines.findIndex((line) => line.includes('Query Text:'));
  if (start < 0) return '?';
  const text = [lines[start]!.slice(lines[start]!.indexOf('Query Text:') + 'Query Text:'.length)];
  for (const line of lines.slice(start + 1)) {
    if (/\(cost=|\(actual time=/.test(line)) break;
    text.push(line);
  }
  return text.join(' ').replace(/\s+/g, ' ').trim().slice(0, 160);
}
