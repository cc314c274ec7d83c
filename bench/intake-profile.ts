/**
 * `npm run bench:intake -- [--workers on|off] [--seconds N] [--rate R] [--cpu-prof DIR] [--env K=V]…`:
 * one service process (bin/start.ts) on a private PostgreSQL (fsync on) and redis-server, signed
 * orders/create webhooks from autocannon in its own process (after a one-second warm-up), and the
 * service's CPU time per accepted webhook read from /proc (so it includes the processing running
 * beside the intake, and not the time the process waited for a core, which a loaded machine adds
 * to every wall-clock figure). Then the webhook floor (bench/floors/webhook.ts) under the same load,
 * measured the same way, and the ratio of the two. `--cpu-prof` writes V8 profiles of both.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { adminCommands } from '../src/admin/commands.ts';
import { openPostgres } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createLogger } from '../src/logger.ts';
import { freePort } from '../src/net/free-port.ts';
import { startPrivateRedis } from '../src/redis/private-redis.ts';
import { DEVELOPMENT_API_SECRET } from '../src/shopify/config.ts';
import { startChild } from './support/children.ts';
import { startBenchService } from './support/service.ts';
import { runLoad } from './support/load.ts';
import { startPostgres } from './support/postgres.ts';

const { values } = parseArgs({
  options: {
    workers: { type: 'string', default: 'on' },
    seconds: { type: 'string', default: '5' },
    rate: { type: 'string' },
    connections: { type: 'string', default: '10' },
    'cpu-prof': { type: 'string' },
    env: { type: 'string', multiple: true },
  },
});
const SHOP = 'bench-store.myshopify.com';
const logger = createLogger('silent');

function cpuTicks(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime, in clock ticks (100/s)
}

const postgres = await startPostgres();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-intake-'));
const redis = await startPrivateRedis(path.join(dataDir, 'redis'), logger);
const handle = await openPostgres(postgres.url);
await migrateToLatest(handle.db);
await adminCommands(handle.db).run('shops.add', { shop: SHOP });
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const extra = Object.fromEntries((values.env ?? []).map((e) => e.split('=') as [string, string]));
const { child } = await startBenchService({
  port,
  databaseEnv: postgres.doorstepEnv,
  redisUrl: redis.url,
  dataDir,
  env: {
    WORKERS: values.workers!,
    ...(values['cpu-prof'] ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${values['cpu-prof']}` } : {}),
    ...extra,
  },
});
// Warm-up: the first requests compile the route's code.
await runLoad({
  base,
  kind: 'orders-create-webhook',
  shop: SHOP,
  secret: DEVELOPMENT_API_SECRET,
  seconds: 1,
  connections: 10,
});
const pid = child.process.pid!;
const count = async () =>
  Number(
    (
      await handle.db
        .selectFrom('webhook_receipts')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
const waitDrained = async () => {
  const t = Date.now();
  for (;;) {
    const r = await handle.db
      .selectFrom('webhook_receipts')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('status', '=', 'received')
      .executeTakeFirstOrThrow();
    if (Number(r.n) === 0 || values.workers === 'off') return (Date.now() - t) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
};
await waitDrained();
const n0 = await count();
const c0 = cpuTicks(pid);
const result = await runLoad({
  base,
  kind: 'orders-create-webhook',
  shop: SHOP,
  secret: DEVELOPMENT_API_SECRET,
  seconds: Number(values.seconds),
  connections: Number(values.connections),
  ...(values.rate ? { overallRate: Number(values.rate) } : {}),
});
const c1 = cpuTicks(pid);
const n1 = await count();
const drain = await waitDrained();
const c2 = cpuTicks(pid);
const accepted = n1 - n0;
process.stdout.write(
  `${JSON.stringify({
    workers: values.workers,
    okPerSecond: Math.round(result.okPerSecond),
    p50: result.latencyP50Ms,
    p99: result.latencyP99Ms,
    non2xx: result.non2xx,
    accepted,
    cpuMsPerWebhookDuringLoad: +(((c1 - c0) * 10) / accepted).toFixed(3),
    serviceCpuShareDuringLoad: +((c1 - c0) / 100 / Number(values.seconds)).toFixed(2),
    drainSecondsAfter: drain,
    cpuMsPerWebhookIncludingDrain: +(((c2 - c0) * 10) / accepted).toFixed(3),
  })}\n`,
);
await child.stop();
// The floor (bench/floors/webhook.ts: HMAC + one INSERT) in the same run, measured the same way.
const floorPort = await freePort();
const floorBase = `http://127.0.0.1:${floorPort}`;
const floorChild = await startChild(
  'bench/floors/webhook.ts',
  [],
  {
    PORT: String(floorPort),
    DATABASE_URL: postgres.url,
    SHOPIFY_API_SECRET: DEVELOPMENT_API_SECRET,
    ...(values['cpu-prof'] ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${values['cpu-prof']}/floor` } : {}),
  },
  floorBase,
);
const load = {
  kind: 'orders-create-webhook' as const,
  shop: SHOP,
  secret: DEVELOPMENT_API_SECRET,
  connections: Number(values.connections),
};
await runLoad({ ...load, base: floorBase, seconds: 1 });
const f0 = cpuTicks(floorChild.process.pid!);
const floorResult = await runLoad({ ...load, base: floorBase, seconds: Number(values.seconds) });
const f1 = cpuTicks(floorChild.process.pid!);
const floorAccepted = floorResult.okPerSecond * Number(values.seconds);
process.stdout.write(
  `${JSON.stringify({
    floorOkPerSecond: Math.round(floorResult.okPerSecond),
    floorCpuMsPerWebhook: +(((f1 - f0) * 10) / floorAccepted).toFixed(3),
    ratio: +(result.okPerSecond / floorResult.okPerSecond).toFixed(3),
  })}\n`,
);
await floorChild.stop();
await handle.close();
await redis.stop();
postgres.stop();
fs.rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
