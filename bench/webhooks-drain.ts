/**
 * How fast the default single process works off Shopify webhooks: `npm run bench:webhooks-drain`
 * (PGlite) or `scripts/with-postgres.sh npm run bench:webhooks-drain` (PostgreSQL).
 *
 * Two measurements, each against the real app (HTTP intake, BullMQ on a private Redis, workers):
 * - drain: N signed `orders/create` webhooks are taken in with the workers stopped, then the workers
 *   start and the time to process all of them gives the processing rate alone;
 * - burst (`--burst-rate R --burst-seconds S`): webhooks arrive at R/s for S s with the workers
 *   running; reports processed/s during the burst and how long the backlog takes to drain after it.
 *
 * Options: `--count N` (drain, default 2000), `--concurrency C` (intake connections, default 32).
 * Prints one JSON line per measurement. The numbers are only comparable within one run on one
 * machine; the `bench` harness calls this for the figures it judges.
 */
import http from 'node:http';
import os from 'node:os';
import { parseArgs } from 'node:util';
import type { AddressInfo } from 'node:net';
import { startWorkers } from '../jobs/start-workers.ts';
import { createHttpApp, createServices } from '../src/app.ts';
import { nodeHandler } from '../src/http/node-handler.ts';
import { createLogger } from '../src/logger.ts';
import { compileMessageTemplates } from '../src/notifications/messages/message-templates.ts';
import { fakeShopifyId, orderPayload, signedWebhook } from '../src/shopify/dev/webhook-payloads.ts';
import { registerShop } from '../src/shopify/shops.ts';
import { startInProcessBase } from './support/in-process.ts';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '32' },
    'burst-rate': { type: 'string' },
    'burst-seconds': { type: 'string', default: '20' },
    /** PostgreSQL: turn fsync back on (test:postgres runs it off), as production commits. */
    fsync: { type: 'boolean', default: false },
  },
});
const count = Number(values.count);
const concurrency = Number(values.concurrency);

const SECRET = 'bench-webhook-secret';
const SHOP = 'bench-drain.myshopify.com';

const logger = createLogger(process.env.LOG_LEVEL ?? 'silent');
const base = await startInProcessBase({
  name: 'drain',
  env: {
    SHOPIFY_API_KEY: 'bench-webhook-key',
    SHOPIFY_API_SECRET: SECRET,
    // No carrier is asked here (orders/create carries no tracking number); the sandbox keeps the
    // configuration valid on PostgreSQL without credentials.
    CARRIER_SANDBOX: 'on',
    LOG_LEVEL: 'silent',
  },
  fsync: values.fsync,
  logger,
});
const { config, database } = base;
const services = await createServices(config, logger, database, await compileMessageTemplates());
const server = http.createServer(nodeHandler(createHttpApp(services)));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
await registerShop(database.db, SHOP);

const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });

/** One signed orders/create for a gift with a recipient e-mail: the common, full-cost case. */
function post(): Promise<number> {
  const id = fakeShopifyId();
  const signed = signedWebhook(
    SECRET,
    SHOP,
    'orders/create',
    orderPayload({
      id,
      lines: [{ id: fakeShopifyId(), recipientName: 'Bob', recipientEmail: `bob+${id}@example.com` }],
    }),
  );
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${baseUrl}/shopify/webhooks`,
      { method: 'POST', headers: { ...signed.headers, 'Content-Length': Buffer.byteLength(signed.body) }, agent },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    request.end(signed.body);
  });
}

const processed = async () =>
  Number(
    (
      await database.db
        .selectFrom('webhook_receipts')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('status', '=', 'processed')
        .executeTakeFirstOrThrow()
    ).n,
  );

async function waitFor(target: number): Promise<void> {
  while ((await processed()) < target) await new Promise((resolve) => setTimeout(resolve, 100));
}

const report = (line: Record<string, unknown>) =>
  process.stdout.write(
    `${JSON.stringify({ database: database.kind, cpus: os.cpus().length, load: os.loadavg()[0], ...line })}\n`,
  );

if (values['burst-rate'] === undefined) {
  // Intake with the workers stopped, then the drain alone.
  const intakeStart = performance.now();
  let sent = 0;
  let refused = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (sent < count) {
        sent++;
        if ((await post()) !== 200) refused++;
      }
    }),
  );
  const intakeMs = performance.now() - intakeStart;
  const drainStart = performance.now();
  const workers = await startWorkers(services);
  await waitFor(count - refused);
  const drainMs = performance.now() - drainStart;
  report({
    measurement: 'drain',
    webhooks: count,
    refused,
    intake_per_s: Math.round((count / intakeMs) * 1000),
    processed_per_s: Math.round(((count - refused) / drainMs) * 1000),
    drain_s: Number((drainMs / 1000).toFixed(1)),
  });
  await workers.close();
} else {
  // A steady burst with the workers running, then the drain after it.
  const rate = Number(values['burst-rate']);
  const seconds = Number(values['burst-seconds']);
  const workers = await startWorkers(services);
  const start = performance.now();
  const total = rate * seconds;
  let sent = 0;
  let refused = 0;
  let inFlight = 0;
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate));
      while (sent < due && inFlight < concurrency * 4) {
        sent++;
        inFlight++;
        post()
          .then((status) => {
            if (status !== 200) refused++;
          })
          .catch(() => refused++)
          .finally(() => inFlight--);
      }
      if (sent >= total && inFlight === 0) {
        clearInterval(tick);
        resolve();
      }
    }, 10);
  });
  const burstMs = performance.now() - start;
  const duringBurst = await processed();
  await waitFor(total - refused);
  const drainMs = performance.now() - start - burstMs;
  report({
    measurement: 'burst',
    rate,
    seconds,
    sent,
    refused,
    accepted_per_s: Math.round(((sent - refused) / burstMs) * 1000),
    processed_per_s_during: Math.round((duringBurst / burstMs) * 1000),
    backlog_at_end: total - refused - duringBurst,
    drain_after_s: Number((drainMs / 1000).toFixed(1)),
  });
  await workers.close();
}

agent.destroy();
server.closeAllConnections();
server.close();
await services.close();
await database.close();
await base.stop();
