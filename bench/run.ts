/**
 * `npm run bench [-- --quick] [--only <step>]… [--pairs N] [--pair-seconds S] [--topology-web N] [--topology-workers N]`: every figure of issue 11 in one run, on this machine,
 * against its own PostgreSQL 15 (fsync on) and redis-server, with autocannon in its own process and
 * the floors measured in the same run. Writes bench/results/latest.md (PASS/MISS per target, with
 * the reason) and prints it.
 *
 * The steps, in order, are the SCENARIOS list below; `--only` runs the named ones (the setup they
 * need is started on first use). `--quick` is the development run: one short run per scenario,
 * a short burst and a 50,000-row seed instead of medians of three, 60 s at 500/s and 1,000,000 rows.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import pg from 'pg';
import { adminCommands } from '../src/admin/commands.ts';
import { openPostgres } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createLogger } from '../src/logger.ts';
import { freePort } from '../src/net/free-port.ts';
import { PRIVATE_REDIS_PID_FILE, startPrivateRedis, type PrivateRedis } from '../src/redis/private-redis.ts';
import { DEVELOPMENT_API_SECRET } from '../src/shopify/config.ts';
import { sampleVideo } from '../src/videos/sample-video.ts';
import { renderReport, type StepOutcome } from './report.ts';
import { median, medianInterval, percentile } from './stats.ts';
import {
  addTouched,
  buffersVerdict,
  largestGrowth,
  oneLine,
  startBufferCounter,
  touchedBetween,
  type BufferCounter,
} from './support/buffers.ts';
import { startChild, runToEnd, type Child } from './support/children.ts';
import { benchRoot, loadProblem, runLoad, type LoadResult, type LoadSpec } from './support/load.ts';
import { startPostgres, type BenchPostgres } from './support/postgres.ts';
import { SEEDED_TABLES, seedLargeTables, tableSizes } from './support/seed.ts';
import { basicAuthorization, createBenchOrder, startBenchService } from './support/service.ts';
import { measurePush, PUSHED_CARRIERS } from './tracking/push.ts';
import { measureTopology } from './topology.ts';
import {
  buffersId,
  constancyId,
  evaluate,
  formatNumber,
  HTTP_SCENARIOS,
  pairedEmptyId,
  pushId,
  seededId,
  TARGETS,
  type Figure,
  type HttpScenario,
} from './targets.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string', multiple: true },
    // For finding the worker count that keeps pace at a higher rate (e.g. --burst-rate 2000).
    'burst-rate': { type: 'string' },
    'burst-seconds': { type: 'string' },
    // For deciding a large-table verdict the default pairs leave open (more, shorter alternations).
    pairs: { type: 'string' },
    'pair-seconds': { type: 'string' },
    // The topology step's process counts (web processes with WORKERS=off, worker processes).
    'topology-web': { type: 'string' },
    'topology-workers': { type: 'string' },
  },
});

const quick = values.quick;
const settings = quick
  ? {
      runs: 1,
      seconds: 2,
      seedRows: 50_000,
      pairs: 2,
      pairSeconds: 2,
      burstSeconds: 2,
      burstRate: 500,
      drainLimitSeconds: 30,
      deliveries: 10,
      trackingPackages: 2_000,
      storagePackages: 5_000,
      sendingBacklog: 500,
      pushPackages: 10,
      topologyWeb: 1,
      topologyWorkers: 2,
      topologySustainedSeconds: 10,
      subprocessLimitSeconds: 180,
      stepLimitSeconds: 600,
    }
  : {
      runs: 3,
      seconds: 10,
      seedRows: 1_000_000,
      // Ten pairs of 5 s rather than five of 10 s: the same load time, and an interval on the median
      // of the pair ratios at 97.9% confidence ([2nd, 9th] of 10) where five pairs give only [min, max].
      pairs: 10,
      pairSeconds: 5,
      burstSeconds: 60,
      burstRate: 500,
      drainLimitSeconds: 120,
      deliveries: 40,
      trackingPackages: 10_000,
      storagePackages: 100_000,
      sendingBacklog: 5_000,
      pushPackages: 30,
      // One web and two workers: on two cores beside PostgreSQL, more processes only compete.
      topologyWeb: 1,
      topologyWorkers: 2,
      // Processing judged over half a minute of backlog, not a burst.
      topologySustainedSeconds: 30,
      // A tracking step runs in its own process (seconds to a minute): past this it is killed and reported as failed.
      subprocessLimitSeconds: 600,
      // Any step (large-tables takes about 16 min): past this the bench reports it failed and goes on.
      stepLimitSeconds: 2_700,
    };
for (const [flag, key] of [
  ['burst-rate', 'burstRate'],
  ['burst-seconds', 'burstSeconds'],
  ['pairs', 'pairs'],
  ['pair-seconds', 'pairSeconds'],
  ['topology-web', 'topologyWeb'],
  ['topology-workers', 'topologyWorkers'],
] as const) {
  const given = values[flag];
  if (given === undefined) continue;
  const n = Number(given);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${flag} takes a positive integer, got "${given}"`);
  settings[key] = n;
}
const CONNECTIONS = 10;
/** A fixed rate needs connections to spare: each may wait up to 100 ms for its answer and still keep the rate. */
const BURST_CONNECTIONS = Math.max(50, Math.ceil(settings.burstRate / 10));
const ORDERS_UNDER_LOAD = 100;
const SHOP = 'bench-store.myshopify.com';
const SECRET = DEVELOPMENT_API_SECRET;
const logger = createLogger('silent');

const say = (line: string) =>
  process.stderr.write(`[bench ${((performance.now() - started) / 1000).toFixed(0)} s] ${line}\n`);
const started = performance.now();
const figures = new Map<string, Figure>();
const stepOutcomes: StepOutcome[] = [];
const record = (figure: Figure) => figures.set(figure.id, figure);

// ---------------------------------------------------------------------------------------------
// The environment: PostgreSQL, Redis, the service, an account with a shop and orders to load.

interface Environment {
  postgres: BenchPostgres;
  pool: pg.Pool;
  redis: PrivateRedis;
  dataDir: string;
  /** The database every step but the large-table one measures: only the bench's own rows. */
  main: Site;
  buffers: BufferCounter;
}
interface Service {
  base: string;
  child: Child;
  authorization: string;
  orderIds: string[];
}

/**
 * A database of the bench's PostgreSQL with a service of its own (its own Redis, data directory and
 * port): the main one, and for the large-table comparison a second, seeded one beside it.
 */
interface Site {
  name: string;
  /** The service's URL of it; the bench's own pool connects as another user (support/buffers.ts). */
  databaseUrl: string;
  /** Its name in the server, for pg_stat_statements. */
  database: string;
  pool: pg.Pool;
  redis: PrivateRedis;
  dataDir: string;
  /** A restarted service (settleWebhooks) comes back on the same port: load specs already hold its address. */
  port?: number;
  /** The bench shop's account and the orders the load goes to; made once, kept if the service restarts. */
  merchant?: { authorization: string; orderIds: string[] };
  service?: Service;
}

let environment: Environment | undefined;

async function env(): Promise<Environment> {
  if (environment) return environment;
  say('starting PostgreSQL (fsync on) and redis-server');
  const postgres = await startPostgres();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-bench-'));
  const buffers = await startBufferCounter(postgres.url);
  const main = await openSite('main', postgres.url, dataDir, buffers);
  environment = { postgres, pool: main.pool, redis: main.redis, dataDir, main, buffers };
  return environment;
}

/** Migrates the database at `databaseUrl` and gives it a private redis-server under `parentDir`. */
async function openSite(name: string, databaseUrl: string, parentDir: string, buffers: BufferCounter): Promise<Site> {
  const dataDir = path.join(parentDir, name);
  fs.mkdirSync(dataDir, { recursive: true });
  const redis = await startPrivateRedis(path.join(dataDir, 'redis'), logger);
  const handle = await openPostgres(databaseUrl);
  await migrateToLatest(handle.db);
  await handle.close();
  const pool = new pg.Pool({ connectionString: buffers.asBench(databaseUrl), max: 4 });
  return { name, databaseUrl, database: new URL(databaseUrl).pathname.slice(1), pool, redis, dataDir };
}

async function mainSite(): Promise<Site> {
  return (await env()).main;
}

async function startService(site?: Site): Promise<Service> {
  site ??= await mainSite();
  if (site.service) return site.service;
  const { postgres } = await env();
  const { redis, dataDir } = site;
  let credentials: { app_id: string; api_key: string } | undefined;
  if (!site.merchant) {
    // The shop as if it installed the app: its account's app id and API key sign the /v1 requests.
    const handle = await openPostgres(site.databaseUrl);
    credentials = (await adminCommands(handle.db).run('shops.add', { shop: SHOP })) as typeof credentials;
    await handle.close();
  }
  site.port ??= await freePort();
  say(`starting the service on the ${site.name} database (bin/start.ts, workers on)`);
  const { base, child } = await startBenchService({
    port: site.port,
    databaseEnv: { ...postgres.doorstepEnv, DATABASE_URL: site.databaseUrl },
    redisUrl: redis.url,
    dataDir,
    // To see where the service's time goes: BENCH_SERVICE_NODE_OPTIONS='--cpu-prof --cpu-prof-dir=…'.
    env: process.env.BENCH_SERVICE_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_SERVICE_NODE_OPTIONS } : {},
  });
  if (!site.merchant) {
    const authorization = basicAuthorization(credentials!);
    const orderIds: string[] = [];
    for (let i = 0; i < ORDERS_UNDER_LOAD; i++) orderIds.push(await createBenchOrder(base, authorization, i));
    site.merchant = { authorization, orderIds };
  }
  site.service = { base, child, ...site.merchant };
  return site.service;
}

// ---------------------------------------------------------------------------------------------
// Measuring.

/** Runs a load `settings.runs` times and records the median of its 2xx answers per second. */
async function throughput(
  id: string,
  label: string,
  spec: Omit<LoadSpec, 'seconds' | 'connections'>,
  beforeEachRun?: () => Promise<void>,
) {
  const results: LoadResult[] = [];
  for (let run = 0; run < settings.runs; run++) {
    await beforeEachRun?.();
    results.push(await runLoad({ ...spec, seconds: settings.seconds, connections: CONNECTIONS }));
  }
  const rates = results.map((r) => r.okPerSecond);
  const problems = results.map(loadProblem).filter((p): p is string => p !== undefined);
  const figure: Figure = {
    id,
    label,
    value: median(rates),
    unit: 'req/s',
    note: `${settings.runs > 1 ? `median of ${rates.map((r) => Math.round(r)).join(', ')}; ` : ''}p50 ${median(results.map((r) => r.latencyP50Ms))} ms, p99 ${median(results.map((r) => r.latencyP99Ms))} ms`,
    ...(problems.length > 0 ? { problem: problems.join('; ') } : {}),
  };
  record(figure);
  say(`${label}: ${Math.round(figure.value!)} req/s${figure.problem ? ` (${figure.problem})` : ''}`);
}

/** Starts a floor, measures it, stops it: one floor at a time, so floors never compete with each other. */
async function floor(
  id: string,
  label: string,
  entry: string,
  args: string[],
  spec: Omit<LoadSpec, 'base' | 'seconds' | 'connections'>,
) {
  const { postgres } = await env();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = await startChild(
    path.join('bench/floors', entry),
    args,
    {
      PORT: String(port),
      DATABASE_URL: postgres.url,
      SHOPIFY_API_SECRET: SECRET,
    },
    base,
  );
  try {
    await throughput(id, label, { ...spec, base });
  } finally {
    await child.stop();
  }
}

/** Webhooks of the bench's shop still waiting to be processed. */
async function webhookBacklog(site?: Site): Promise<number> {
  const { pool } = site ?? (await mainSite());
  const { rows } = await pool.query<{ n: string }>(
    `select count(*)::text as n from webhook_receipts where shop = $1 and status = 'received'`,
    [SHOP],
  );
  return Number(rows[0]!.n);
}

/**
 * Waits until the service has processed every webhook it accepted. `seconds` counts from `since`
 * (default: now) to the moment none was left, or is null when `limitSeconds` ran out first.
 */
async function drainWebhooks(
  limitSeconds: number,
  since = Date.now(),
  site?: Site,
): Promise<{ seconds: number | null; left: number }> {
  const from = Date.now();
  for (;;) {
    const left = await webhookBacklog(site);
    if (left === 0) return { seconds: (Date.now() - since) / 1000, left };
    if (Date.now() - from > limitSeconds * 1000) return { seconds: null, left };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Gives the next measurement a machine of its own: waits for the webhook backlog to be processed,
 * and past the limit gives up on it — stops the service, marks what is left `failed` (so the
 * reconciler does not hand it out again), empties the bench's own Redis and starts the service
 * afresh. Returns how many webhooks were abandoned.
 */
async function settleWebhooks(limitSeconds = settings.drainLimitSeconds, site?: Site): Promise<number> {
  site ??= await mainSite();
  const drained = await drainWebhooks(limitSeconds, Date.now(), site);
  if (drained.seconds !== null) return 0;
  say(`${drained.left} webhooks still unprocessed on the ${site.name} database; abandoning them`);
  await stopService(site);
  const { pool, redis } = site;
  const { rowCount } = await pool.query(
    `update webhook_receipts set status = 'failed', error = $2 where shop = $1 and status = 'received'`,
    [SHOP, ABANDONED],
  );
  const client = new Redis(redis.url);
  await client.flushall();
  client.disconnect();
  await startService(site);
  return rowCount ?? 0;
}
const ABANDONED = 'abandoned by the bench: not processed in time';

/** What each HTTP scenario sends to a service; `webhooks` scenarios start each run once the last run's backlog is processed. */
function scenarioLoads(
  s: Service,
): Record<HttpScenario, { label: string; spec: Omit<LoadSpec, 'seconds' | 'connections'>; webhooks?: true }> {
  const api = { base: s.base, orderIds: s.orderIds, authorization: s.authorization };
  return {
    'service.get': { label: HTTP_SCENARIOS['service.get'], spec: { ...api, kind: 'get-order' } },
    'service.put-price': { label: HTTP_SCENARIOS['service.put-price'], spec: { ...api, kind: 'put-price' } },
    'service.put-carrier': {
      label: `${HTTP_SCENARIOS['service.put-carrier']} (carrier sandbox)`,
      spec: { ...api, kind: 'put-carrier' },
    },
    'service.webhook-intake': {
      label: HTTP_SCENARIOS['service.webhook-intake'],
      spec: { base: s.base, kind: 'orders-create-webhook', shop: SHOP, secret: SECRET },
      webhooks: true,
    },
  };
}

async function serviceScenarios() {
  const loads = scenarioLoads(await startService());
  for (const [id, load] of Object.entries(loads) as Array<[HttpScenario, (typeof loads)[HttpScenario]]>)
    // Each webhook run leaves processing behind; a run starts once the one before it is processed, so it measures alone.
    await throughput(id, load.label, load.spec, load.webhooks ? async () => void (await settleWebhooks()) : undefined);
}

async function webhookBurst() {
  await startService();
  await settleWebhooks();
  const s = await startService();
  const { pool } = await env();
  const { rows: before } = await pool.query<{ at: Date }>('select now() as at');
  say(`webhook burst: ${settings.burstSeconds} s at ${settings.burstRate}/s`);
  const load = await runLoad({
    base: s.base,
    kind: 'orders-create-webhook',
    shop: SHOP,
    secret: SECRET,
    seconds: settings.burstSeconds,
    // At 10 connections, answers slower than 20 ms would cap what is offered below 500/s.
    connections: BURST_CONNECTIONS,
    overallRate: settings.burstRate,
  });
  const backlogAtEnd = await webhookBacklog();
  const drained = await drainWebhooks(settings.drainLimitSeconds, load.finishedAt);
  // The drain above already waited its limit: what is left now is abandoned at once.
  const abandoned = await settleWebhooks(0);
  const burstStart = before[0]!.at;
  const processed = await pool.query<{ n: string; failed: string; first: Date | null; last: Date | null }>(
    `select count(*) filter (where status = 'processed')::text as n,
            count(*) filter (where status = 'failed' and error is distinct from $3)::text as failed,
            min(received_at) as first, max(processed_at) as last
       from webhook_receipts where shop = $1 and received_at >= $2`,
    [SHOP, burstStart, ABANDONED],
  );
  const row = processed.rows[0]!;
  const span = row.first && row.last ? (row.last.getTime() - row.first.getTime()) / 1000 : null;
  const shape = `${settings.burstSeconds} s at ${settings.burstRate}/s${quick ? ' (--quick: shorter than the 60 s the issue names)' : ''}`;
  // The target is a drain no longer than the burst itself (60 s after a 60 s burst): a shorter burst is judged in proportion.
  record({ id: 'burst.length', label: 'Burst: length', value: (load.finishedAt - load.startedAt) / 1000, unit: 's' });
  record({
    id: 'burst.accepted',
    label: 'Burst: webhooks accepted',
    value: load.ok,
    unit: 'webhooks',
    note: `${shape}; ${Math.round(load.okPerSecond)}/s; ${backlogAtEnd} waiting when it ended`,
    ...(loadProblem(load) ? { problem: loadProblem(load)! } : {}),
  });
  // A burst the service could not even accept at the offered rate drains sooner; it must not pass for that.
  const offeredShortfall =
    load.okPerSecond < 0.9 * settings.burstRate
      ? `the service accepted only ${Math.round(load.okPerSecond)}/s of the ${settings.burstRate}/s offered`
      : '';
  const failures = Number(row.failed) > 0 ? `${row.failed} webhooks failed processing` : '';
  const problem = [offeredShortfall, failures].filter(Boolean).join('; ');
  record({
    id: 'burst.drain',
    label: 'Burst: drain time after it ended',
    // Not drained by the limit: the limit is a lower bound of the drain time, and the target is missed.
    value: drained.seconds ?? settings.drainLimitSeconds,
    unit: 's',
    note: drained.seconds === null ? `at least: ${shape}` : shape,
    ...(drained.seconds === null || problem
      ? {
          problem: [
            drained.seconds === null
              ? `not drained: ${abandoned} still unprocessed ${settings.drainLimitSeconds} s after it ended (abandoned)`
              : '',
            problem,
          ]
            .filter(Boolean)
            .join('; '),
        }
      : {}),
  });
  record({
    id: 'burst.processed-rate',
    label: 'Burst: webhooks processed per second (first received → last processed)',
    value: span && drained.seconds !== null ? Number(row.n) / span : null,
    unit: '/s',
    note: `${row.n} webhooks`,
  });
  // The sender's "record your video" e-mail for each burst order: how long it waited behind the burst.
  // Waiting is bounded (30 s): e-mails still unsent by then are reported, not waited for.
  const emails = await waitForSends(`s.kind = 'sender_record_link' and s.created_at >= $1`, [burstStart], 30);
  const delays = emails.sent.map((e) => e.sent_at.getTime() - e.created_at.getTime());
  record({
    id: 'burst.sender-email-p95',
    label: 'Burst: sender e-mail delay p95 (queued → sent)',
    value: delays.length > 0 ? percentile(delays, 95) / 1000 : null,
    unit: 's',
    note:
      delays.length > 0
        ? `p50 ${(percentile(delays, 50) / 1000).toFixed(2)} s over ${delays.length} e-mails`
        : 'no sender e-mails were sent',
    ...(emails.open > 0 ? { problem: `${emails.open} still unsent 30 s after the drain (not counted)` } : {}),
  });
  say(`burst: drained in ${drained.seconds ?? `>${settings.drainLimitSeconds}`} s`);
}

/**
 * The sent ones among the sends matching `where`, once at least `expected` exist and none is still
 * on its way (or after `limitSeconds`).
 */
async function waitForSends(where: string, params: unknown[], limitSeconds: number, expected = 0) {
  const { pool } = await env();
  const from = Date.now();
  for (;;) {
    const { rows } = await pool.query<{ status: string; created_at: Date; sent_at: Date | null }>(
      `select s.status, s.created_at, s.sent_at from sends s where ${where}`,
      params,
    );
    const open = rows.filter((r) => ['pending', 'claimed', 'sending'].includes(r.status));
    if ((open.length === 0 && rows.length >= expected) || Date.now() - from > limitSeconds * 1000)
      return {
        sent: rows.filter((r): r is typeof r & { sent_at: Date } => r.sent_at !== null),
        open: open.length,
      };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Waits (bounded) for messages already due to go out; returns how many were still queued at the limit. */
async function settleSends(limitSeconds = settings.drainLimitSeconds): Promise<number> {
  const { pool } = await mainSite();
  const from = Date.now();
  for (;;) {
    const { rows } = await pool.query<{ n: string }>(
      `select count(*)::text as n from sends where status in ('pending', 'claimed', 'sending') and due_at <= now()`,
    );
    const queued = Number(rows[0]!.n);
    if (queued === 0 || Date.now() - from > limitSeconds * 1000) return queued;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Orders with a processed video marked delivered one by one; delivery → the recipient's send `sent_at`, from the DB. */
async function deliveredToSent() {
  const s = await startService();
  const { pool } = await env();
  await settleWebhooks();
  // Sender e-mails queued by earlier steps (a record link per webhook order) may still be going out:
  // recipients' videos are claimed before them (migration 026), so the figure holds with them queued,
  // and the note says how many there were.
  const queuedBefore = await settleSends();
  const ids: string[] = [];
  for (let i = 0; i < settings.deliveries; i++) {
    const id = await createBenchOrder(s.base, s.authorization, 10_000 + i);
    const upload = await fetch(`${s.base}/v1/orders/${id}/video`, {
      method: 'PUT',
      headers: { Authorization: s.authorization, 'Content-Type': 'video/mp4' },
      body: await sampleVideo(4.2),
    });
    if (!upload.ok) throw new Error(`uploading a video answered ${upload.status}: ${await upload.text()}`);
    ids.push(id);
  }
  const processedBy = Date.now() + 120_000;
  for (;;) {
    const { rows } = await pool.query<{ n: string }>(
      'select count(*)::text as n from orders where id = any($1) and video_processed',
      [ids],
    );
    if (Number(rows[0]!.n) === ids.length) break;
    if (Date.now() > processedBy) throw new Error('the videos were not processed within 120 s');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  // One delivery at a time, as packages arrive: the figure is the latency of one, not of a queue.
  for (const id of ids) {
    const response = await fetch(`${s.base}/v1/orders/${id}`, {
      method: 'PUT',
      headers: { Authorization: s.authorization, 'Content-Type': 'application/json' },
      body: JSON.stringify({ delivered: 1 }),
    });
    if (!response.ok) throw new Error(`marking delivered answered ${response.status}: ${await response.text()}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  await waitForSends(`s.kind = 'recipient_video' and s.order_id = any($1)`, [ids], 60, ids.length);
  const { rows } = await pool.query<{ delivered_at: Date; sent_at: Date }>(
    `select o.delivered_at, s.sent_at from orders o join sends s on s.order_id = o.id
      where o.id = any($1) and s.kind = 'recipient_video' and s.status = 'sent'`,
    [ids],
  );
  const latencies = rows.map((r) => r.sent_at.getTime() - r.delivered_at.getTime());
  const missing = ids.length - rows.length;
  for (const p of [50, 95] as const) {
    record({
      id: `delivered-sent.p${p}`,
      label: `Delivered→sent p${p}`,
      value: latencies.length > 0 ? percentile(latencies, p) : null,
      unit: 'ms',
      note: `${latencies.length} deliveries (orders.delivered_at → sends.sent_at)${
        queuedBefore > 0 ? `, with ${queuedBefore} earlier sender e-mails still queued` : ''
      }`,
      ...(missing > 0 ? { problem: `${missing} of ${ids.length} videos were not sent within 60 s` } : {}),
    });
  }
  say(`delivered→sent p95 ${percentile(latencies, 95)} ms`);
}

/**
 * The large-table comparison. A figure measured minutes before another moves with everything else
 * the machine does in between (the last full run's own three runs spread wider than the 10% judged),
 * so the empty and the large tables are measured side by side: two more databases in the same
 * PostgreSQL, one freshly migrated and one seeded, each with a service of its own, and each scenario's runs alternate between the two
 * (empty, large, large, empty, …: a drift in the machine's load falls on both alike).
 *
 * How it is judged: each pair gives one large ÷ empty ratio; the target is judged on an exact
 * order-statistic confidence interval of their median (stats.ts medianInterval) — PASS when all of
 * it is at or above 0.9, MISS when all of it is below, NOT DECIDED otherwise, with the interval shown.
 * Beside it, a measure the machine's load cannot move: PostgreSQL buffers the service touched per
 * answered request on each database (pg_stat_statements, support/buffers.ts), which says whether the
 * work itself grows with the data.
 */
async function largeTables() {
  const { postgres, dataDir, buffers } = await env();
  // The main database is not empty by now (the earlier steps' orders, their e-mails perhaps still
  // going out): its service is stopped, and the empty side is a database of its own.
  await stopService(await mainSite());
  bare ??= await bareSite(postgres, dataDir, buffers);
  const emptySite = bare;
  await startService(emptySite);
  seeded ??= await seedSite(postgres, dataDir, buffers);
  await startService(seeded.site);
  const other = seeded.site;
  const pairs = settings.pairs;
  for (const id of Object.keys(HTTP_SCENARIOS) as HttpScenario[]) {
    const results = new Map<Site, LoadResult[]>([
      [emptySite, []],
      [other, []],
    ]);
    const perRequest = new Map<Site, number[]>([
      [emptySite, []],
      [other, []],
    ]);
    // Each site's buffers per statement and 2xx answers over all its runs: which statement grew.
    const statements = new Map<Site, { byStatement: Map<string, number>; requests: number }>([
      [emptySite, { byStatement: new Map(), requests: 0 }],
      [other, { byStatement: new Map(), requests: 0 }],
    ]);
    // Webhooks a run left unprocessed past the drain limit: their buffers are missing from its count.
    const unprocessed = new Map<Site, number>([
      [emptySite, 0],
      [other, 0],
    ]);
    // One unrecorded second on each first: a service's first requests of a kind run cold (JIT, pool, caches).
    for (const site of [emptySite, other]) {
      const load = scenarioLoads(await startService(site))[id];
      await runLoad({ ...load.spec, seconds: 1, connections: CONNECTIONS });
    }
    for (let pair = 0; pair < pairs; pair++) {
      for (const site of pair % 2 === 0 ? [emptySite, other] : [other, emptySite]) {
        const load = scenarioLoads(await startService(site))[id];
        // Neither service may still be working through an earlier run's webhooks while this one runs.
        if (load.webhooks) for (const each of [emptySite, other]) await settleWebhooks(undefined, each);
        const before = await buffers.touched(site.database);
        const result = await runLoad({ ...load.spec, seconds: settings.pairSeconds, connections: CONNECTIONS });
        // A webhook's cost includes processing it: its buffers are counted until the backlog is done.
        const drained = load.webhooks ? await drainWebhooks(settings.drainLimitSeconds, Date.now(), site) : undefined;
        const touched = touchedBetween(before, await buffers.touched(site.database));
        if (drained && drained.seconds === null) {
          unprocessed.set(site, unprocessed.get(site)! + drained.left);
          // The drain above already waited its limit: abandon the rest now rather than wait again before the next run.
          await settleWebhooks(0, site);
        }
        results.get(site)!.push(result);
        if (result.ok > 0) perRequest.get(site)!.push(touched.total / result.ok);
        addTouched(statements.get(site)!.byStatement, touched);
        statements.get(site)!.requests += result.ok;
      }
    }
    const label = scenarioLoads(emptySite.service!)[id].label;
    const empty = results.get(emptySite)!;
    const large = results.get(other)!;
    const ratios = large.map((r, i) => r.okPerSecond / empty[i]!.okPerSecond);
    const interval = medianInterval(ratios, 0.9);
    const figure = (rs: LoadResult[]): Omit<Figure, 'id' | 'label'> => {
      const problems = rs.map(loadProblem).filter((p): p is string => p !== undefined);
      return {
        value: median(rs.map((r) => r.okPerSecond)),
        unit: 'req/s',
        note: `median of ${rs.map((r) => Math.round(r.okPerSecond)).join(', ')}; p50 ${median(rs.map((r) => r.latencyP50Ms))} ms, p99 ${median(rs.map((r) => r.latencyP99Ms))} ms`,
        ...(problems.length > 0 ? { problem: problems.join('; ') } : {}),
      };
    };
    const emptyFigure = figure(empty);
    const largeFigure = figure(large);
    record({ id: pairedEmptyId(id), label: `${label} (empty tables, alternating with the large)`, ...emptyFigure });
    record({ id: seededId(id), label: `${label} (large tables)`, ...largeFigure });
    const grewMost = largestGrowth(statements.get(emptySite)!, statements.get(other)!);
    const emptyBuffers = median(perRequest.get(emptySite)!);
    const largeBuffers = median(perRequest.get(other)!);
    for (const [tables, value, site] of [
      ['empty', emptyBuffers, emptySite],
      ['large', largeBuffers, other],
    ] as const)
      record({
        id: buffersId(id, tables),
        label: `${label}: PostgreSQL buffers touched per request (${tables} tables)`,
        value: Number.isFinite(value) ? value : null,
        unit: 'buffers',
        note: `median over ${perRequest.get(site)!.length} runs of ${perRequest
          .get(site)!
          .map((b) => formatNumber(b))
          .join(', ')} (pg_stat_statements shared_blks_hit + read ÷ 2xx answers${
          scenarioLoads(emptySite.service!)[id].webhooks ? ', until each run’s webhooks were processed' : ''
        })${tables === 'large' && grewMost ? `; grew most from the empty tables: \`${oneLine(grewMost.query, 120)}\` +${formatNumber(grewMost.perRequest)} per request` : ''}`,
        ...(unprocessed.get(site)! > 0
          ? {
              problem: `${unprocessed.get(site)} webhooks were still unprocessed ${settings.drainLimitSeconds} s after their run and were abandoned: their processing is missing from the count`,
            }
          : {}),
      });
    // Processing that keeps pace on the empty tables but not on the large ones is cost that grew with the data.
    const fellBehind =
      unprocessed.get(other)! > 0 && unprocessed.get(emptySite) === 0
        ? `${unprocessed.get(other)} webhooks were still unprocessed ${settings.drainLimitSeconds} s after their runs on the large tables, none on the empty`
        : '';
    const problem = [emptyFigure.problem, largeFigure.problem, fellBehind].filter(Boolean).join('; ');
    record({
      id: constancyId(id),
      label: `${label}: large ÷ empty, median of ${pairs} pairs`,
      value: median(ratios),
      unit: '×',
      interval,
      note: `pairs ${ratios.map((r) => r.toFixed(2)).join(', ')}; ${(interval.confidence * 100).toFixed(1)}% interval ${interval.low.toFixed(2)}–${interval.high.toFixed(2)}`,
      evidence: buffersVerdict(emptyBuffers, largeBuffers, seeded.smallestTablePages, grewMost),
      ...(problem ? { problem } : {}),
    });
    say(
      `${label}: large ÷ empty ${ratios.map((r) => r.toFixed(2)).join(', ')}; buffers per request ${formatNumber(emptyBuffers)} → ${formatNumber(largeBuffers)}`,
    );
  }
  // The steps after this one measure with the emptySite service alone (these databases stay until the end).
  await stopService(other);
  await stopService(emptySite);
}

let seeded: { site: Site; smallestTablePages: number } | undefined;
let bare: Site | undefined;
let topologySite: Site | undefined;

/**
 * Issue 31's production topology (bench/topology.ts): web processes with WORKERS=off and separate
 * worker processes, on a database and a Redis of their own in the bench's PostgreSQL, with every
 * other service of the bench stopped so the step has the machine to itself.
 */
async function topology() {
  const { postgres, dataDir, buffers } = await env();
  for (const site of [environment?.main, bare, seeded?.site]) if (site) await stopService(site);
  if (!topologySite) {
    await (await mainSite()).pool.query('create database doorstep_topology');
    const url = new URL(postgres.url);
    url.pathname = '/doorstep_topology';
    topologySite = await openSite('topology', url.toString(), dataDir, buffers);
    const handle = await openPostgres(topologySite.databaseUrl);
    await adminCommands(handle.db).run('shops.add', { shop: SHOP });
    await handle.close();
  }
  const site = topologySite;
  const pidIn = (file: string) => {
    try {
      return Number(fs.readFileSync(file, 'utf8').split('\n')[0]) || undefined;
    } catch {
      // Not readable (PostgreSQL's data directory belongs to its own user): its CPU is not counted.
      return undefined;
    }
  };
  const postgresPid = pidIn(path.join(postgres.dataDir, 'postmaster.pid'));
  const redisPid = pidIn(path.join(site.dataDir, 'redis', PRIVATE_REDIS_PID_FILE));
  const measured = await measureTopology({
    databaseEnv: { ...postgres.doorstepEnv, DATABASE_URL: site.databaseUrl },
    pool: site.pool,
    redisUrl: site.redis.url,
    dataDir: site.dataDir,
    ...(postgresPid ? { postgresPid } : {}),
    ...(redisPid ? { redisPid } : {}),
    shop: SHOP,
    secret: SECRET,
    webProcesses: settings.topologyWeb,
    workerProcesses: settings.topologyWorkers,
    runs: settings.runs,
    loadSeconds: settings.seconds,
    connections: CONNECTIONS,
    sustainedSeconds: settings.topologySustainedSeconds,
    say,
  });
  for (const figure of measured) record(figure);
}

/** The empty side of the large-table comparison: a freshly migrated database, only the bench shop and its orders in it. */
async function bareSite(postgres: BenchPostgres, dataDir: string, buffers: BufferCounter): Promise<Site> {
  const { pool } = await mainSite();
  await pool.query('create database doorstep_empty');
  const url = new URL(postgres.url);
  url.pathname = '/doorstep_empty';
  return openSite('empty', url.toString(), dataDir, buffers);
}

/** A second database in the bench's PostgreSQL, migrated and seeded with the large tables. */
async function seedSite(
  postgres: BenchPostgres,
  dataDir: string,
  buffers: BufferCounter,
): Promise<{ site: Site; smallestTablePages: number }> {
  const { pool } = await mainSite();
  await pool.query('create database doorstep_seeded');
  const url = new URL(postgres.url);
  url.pathname = '/doorstep_seeded';
  const site = await openSite('seeded', url.toString(), dataDir, buffers);
  say(`seeding ${settings.seedRows.toLocaleString('en-US')} rows in each large table of a second database`);
  const t = performance.now();
  const execute = async (statement: string) => (await site.pool.query<Record<string, unknown>>(statement)).rows;
  await seedLargeTables(execute, settings.seedRows);
  const sizes = await tableSizes(execute);
  record({
    id: 'seeded.rows',
    label: 'Large tables: rows after seeding',
    value: Math.min(...Object.values(sizes)),
    unit: 'rows (smallest table)',
    note: `seeded in ${((performance.now() - t) / 1000).toFixed(0)} s; ${Object.entries(sizes)
      .map(([table, n]) => `${table} ${n.toLocaleString('en-US')}`)
      .join(', ')}`,
  });
  const [pages] = await site.pool
    .query<{ pages: number }>(
      'select min(relpages)::int as pages from pg_class where relname = any($1) and relkind = $2',
      [[...SEEDED_TABLES], 'r'],
    )
    .then((r) => r.rows);
  return { site, smallestTablePages: pages!.pages };
}

/** Stops the service (and the webhook backlog it may still be working through) so it no longer shares the CPU. */
async function stopService(site?: Site): Promise<void> {
  site ??= environment?.main;
  await site?.service?.child.stop();
  if (site) site.service = undefined;
}

async function subprocessStep(name: string, entry: string, args: string[], extraEnv: Record<string, string> = {}) {
  await stopService();
  const t = performance.now();
  say(`${name}`);
  try {
    const body = await runToEnd(entry, args, extraEnv, settings.subprocessLimitSeconds * 1000);
    stepOutcomes.push({ name, status: 'ran', seconds: (performance.now() - t) / 1000, body });
  } catch (error) {
    stepOutcomes.push({
      name,
      status: 'failed',
      seconds: (performance.now() - t) / 1000,
      body: `\`\`\`\n${error instanceof Error ? error.message : String(error)}\n\`\`\``,
    });
  }
}

// ---------------------------------------------------------------------------------------------
// The scenario list. Each helper's scenario lands here as one named entry.

interface Scenario {
  name: string;
  run(): Promise<void>;
}

const SCENARIOS: Scenario[] = [
  {
    name: 'floors',
    run: async () => {
      // The service holds its own account and orders; the floors read and write the same rows.
      const s = await startService();
      await floor('floor.koa', 'Bare Koa route', 'bare-koa.ts', [], { kind: 'hello' });
      await floor('floor.get', 'GET floor without auth (one indexed SELECT)', 'get.ts', [], {
        kind: 'get-order',
        orderIds: s.orderIds,
      });
      await floor('floor.get-auth', 'GET floor with the Basic-auth lookup', 'get.ts', ['--auth'], {
        kind: 'get-order',
        orderIds: s.orderIds,
        authorization: s.authorization,
      });
      await floor('floor.put', 'PUT floor (lock, update, one timeline row, commit)', 'put.ts', [], {
        kind: 'put-price',
        orderIds: s.orderIds,
      });
      await floor('floor.webhook', 'Webhook floor (HMAC + one INSERT)', 'webhook.ts', [], {
        kind: 'orders-create-webhook',
        shop: SHOP,
        secret: SECRET,
      });
    },
  },
  { name: 'service', run: serviceScenarios },
  { name: 'delivered-sent', run: deliveredToSent },
  { name: 'burst', run: webhookBurst },
  {
    // The send dispatcher draining a backlog of due videos (and the notes each queues) to a real SMTP
    // server: no target of its own in issue 11, the figure says whether sending keeps up with a burst.
    name: 'sending',
    run: async () =>
      subprocessStep(
        'Sending: a backlog of due messages (bench/sending.ts)',
        'bench/sending.ts',
        ['--sends', String(settings.sendingBacklog)],
        (await env()).postgres.doorstepEnv,
      ),
  },
  { name: 'large-tables', run: largeTables },
  { name: 'topology', run: topology },
  {
    // Issue 27: what the playback rendition costs a worker (CPU per minute of 1080p, memory, throughput).
    name: 'transcoding',
    run: () =>
      subprocessStep('Videos: transcoding (bench/transcoding.ts)', 'bench/transcoding.ts', [
        '--seconds',
        quick ? '10' : '60',
        '--runs',
        quick ? '1' : '3',
      ]),
  },
  {
    name: 'tracking-polling',
    run: () =>
      subprocessStep('Tracking: polling (bench/tracking/run.ts)', 'bench/tracking/run.ts', [
        '--packages',
        String(settings.trackingPackages),
        // The world family (issue 30) takes ~90 s at 100 worlds; the quick run samples 20 of them.
        ...(quick ? ['--family', '20'] : []),
      ]),
  },
  {
    // In this process (bench/tracking/push.ts exports measurePush): its figures are judged here,
    // one carrier's push after the other.
    name: 'tracking-push',
    run: async () => {
      await stopService();
      for (const carrier of PUSHED_CARRIERS) {
        const t = performance.now();
        const name = `Tracking: push, ${carrier.toUpperCase()}`;
        say(`${name} (bench/tracking/push.ts)`);
        try {
          const push = await measurePush({ packages: settings.pushPackages, carrier });
          const of = `${push.delivered} of ${push.packages} ${carrier.toUpperCase()} packages delivered through the sandbox's push`;
          record({
            id: pushId(carrier, 'calls-per-package'),
            label: `Pushed ${carrier.toUpperCase()} packages: carrier calls per delivered package`,
            value: push.callsPerPackage,
            unit: 'calls',
            note: `${of}; ${push.trackCalls} Track calls, ${push.subscribeCalls} subscribe calls`,
            ...(push.delivered < push.packages ? { problem: `${push.packages - push.delivered} not delivered` } : {}),
          });
          record({
            id: pushId(carrier, 'lag-p95'),
            label: `Pushed ${carrier.toUpperCase()} packages: detection lag p95`,
            value: push.lagP95Ms,
            unit: 'ms',
            note: `p50 ${push.lagP50Ms.toFixed(0)} ms, max ${push.lagMaxMs.toFixed(0)} ms`,
          });
          stepOutcomes.push({ name, status: 'ran', seconds: (performance.now() - t) / 1000, body: '' });
        } catch (error) {
          stepOutcomes.push({
            name,
            status: 'failed',
            seconds: (performance.now() - t) / 1000,
            body: `\`\`\`\n${error instanceof Error ? error.message : String(error)}\n\`\`\``,
          });
        }
      }
    },
  },
  {
    name: 'tracking-storage',
    run: async () =>
      subprocessStep(
        'Tracking: storage (bench/tracking/storage.ts)',
        'bench/tracking/storage.ts',
        [String(settings.storagePackages)],
        { DATABASE_URL: (await env()).postgres.url },
      ),
  },
];

// ---------------------------------------------------------------------------------------------

const chosen = values.only ?? SCENARIOS.map((s) => s.name);
const unknown = chosen.filter((name) => !SCENARIOS.some((s) => s.name === name));
if (unknown.length > 0) {
  process.stderr.write(`Unknown step ${unknown.join(', ')}. Steps: ${SCENARIOS.map((s) => s.name).join(', ')}\n`);
  process.exit(2);
}
// The code measured is the code at the start; edits made while a long run goes on are not in it.
const commitAtStart = gitCommit();
const loadAverageStart = os.loadavg();
let failed = false;
const reportPath = path.join(benchRoot, 'results/latest.md');
// Interrupted, a long run still leaves what it measured so far.
// process.exit runs the 'exit' handlers, which SIGKILL every child still running (support/children.ts).
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const)
  process.once(signal, () => {
    writeReport('interrupted');
    process.exit(code);
  });
try {
  for (const scenario of SCENARIOS.filter((s) => chosen.includes(s.name))) {
    try {
      await withinLimit(scenario.run(), settings.stepLimitSeconds, `step ${scenario.name}`);
      writeReport(`after step ${scenario.name}`);
    } catch (error) {
      // One broken step must not hide the others' figures: the report says what failed.
      failed = true;
      say(`step ${scenario.name} failed: ${error instanceof Error ? error.message : String(error)}`);
      stepOutcomes.push({
        name: `Step ${scenario.name}`,
        status: 'failed',
        seconds: null,
        body: `\`\`\`\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n\`\`\``,
      });
    }
  }
} finally {
  await stopService();
  if (seeded) {
    await stopService(seeded.site);
    await seeded.site.pool.end();
    await seeded.site.redis.stop();
  }
  if (topologySite) {
    await topologySite.pool.end();
    await topologySite.redis.stop();
  }
  await environment?.buffers.close();
  await environment?.pool.end();
  await environment?.redis.stop();
  environment?.postgres.stop();
  if (environment) fs.rmSync(environment.dataDir, { recursive: true, force: true });
}

const report = writeReport('finished');
process.stdout.write(report);
say(`wrote ${path.relative(process.cwd(), reportPath)}`);
process.exit(failed ? 1 : 0);

/**
 * Rejects once `seconds` pass without `work` settling, so one hung step is reported as failed and
 * the bench goes on to the others. The work itself cannot be cancelled from here: it may go on in
 * the background (the bench's exit ends it); steps that run in a child process kill it instead
 * (runToEnd's limit).
 */
async function withinLimit<T>(work: Promise<T>, seconds: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${seconds} s`)), seconds * 1000);
  });
  try {
    return await Promise.race([work, limit]);
  } finally {
    clearTimeout(timer);
  }
}

/** Renders what was measured so far to bench/results/latest.md and returns it. */
function writeReport(state: string): string {
  const evaluations = TARGETS.map((target) => evaluate(target, figures));
  const report = renderReport(
    {
      date: new Date(),
      commit: commitAtStart,
      mode: quick ? 'quick' : 'full',
      seedRows: settings.seedRows,
      pairs: { count: settings.pairs, seconds: settings.pairSeconds },
      runs: settings.runs,
      loadSeconds: settings.seconds,
      connections: CONNECTIONS,
      machine: {
        cpu: os.cpus()[0]?.model.trim() ?? 'unknown CPU',
        cores: os.cpus().length,
        memoryGb: os.totalmem() / 1024 ** 3,
      },
      postgres: environment?.postgres.version ?? 'PostgreSQL (not started)',
      loadAverageStart,
      loadAverageEnd: os.loadavg(),
      elapsedSeconds: (performance.now() - started) / 1000,
      state,
    },
    evaluations,
    [...figures.values()],
    stepOutcomes,
  );
  fs.mkdirSync(path.dirname(reportPath), { recursive: true });
  fs.writeFileSync(reportPath, report);
  return report;
}

function gitCommit(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: benchRoot }).toString().trim();
    const dirty = execFileSync('git', ['status', '--porcelain'], { cwd: benchRoot }).toString().trim() !== '';
    return dirty ? `${commit} + uncommitted changes` : commit;
  } catch {
    return 'unknown';
  }
}
