/**
 * The production topology (issue 31): web processes (`bin/start.ts`, `WORKERS=off`) and separate
 * worker processes (`bin/worker.ts`) on one PostgreSQL and one Redis, as docs/scaling.md advises for
 * webhooks at scale. Run by `npm run bench -- --only topology`; measures, in order:
 *
 * 1. the intake floor: signed `orders/create` webhooks accepted per second by the web processes with
 *    no worker running (what they take in, left as a backlog);
 * 2. the intake while the workers drain that backlog (the target: ≥ 0.8× the floor);
 * 3. processing sustained: webhooks processed per second (each an `orders/create` with a video line
 *    that makes a video order) over a window in which the backlog never runs out (the target: ≥ 300/s).
 *
 * Beside each throughput, the CPU each process kind spent per webhook (utime + stime from
 * /proc/<pid>/stat), PostgreSQL's and Redis's too: on a shared machine that figure moves much less
 * than the rates. Every child is stopped whatever happens (startChild also kills it if the bench
 * exits), and every wait has a deadline.
 */
import path from 'node:path';
import type pg from 'pg';
import { freePort } from '../src/net/free-port.ts';
import { withDeadline } from '../src/process/deadline.ts';
import { median } from './stats.ts';
import { startChild, type Child } from './support/children.ts';
import { cpuMsPer, processTicks, processTreeTicks, ticksPerSecond } from './support/cpu.ts';
import { loadProblem, runLoad, type LoadResult } from './support/load.ts';
import { startBenchService } from './support/service.ts';
import { formatNumber, type Figure } from './targets.ts';

export interface TopologyOptions {
  /** The database's variables for a Doorstep process (DATABASE_URL of this step's own database, the token key). */
  databaseEnv: Record<string, string>;
  /** The bench's own connection to the same database (counts receipts; not counted as the service's). */
  pool: pg.Pool;
  redisUrl: string;
  dataDir: string;
  /** The PostgreSQL postmaster and the redis-server, whose CPU is counted beside the processes'; absent → not counted. */
  postgresPid?: number;
  redisPid?: number;
  shop: string;
  secret: string;
  webProcesses: number;
  workerProcesses: number;
  /** Intake runs (floor, then draining) and each one's length. */
  runs: number;
  loadSeconds: number;
  connections: number;
  /** The processing window: the backlog must last all of it. */
  sustainedSeconds: number;
  say(line: string): void;
}

/** Webhooks a second the backlog is sized for: well above the 300/s target, so a fast worker does not empty it early. */
const PLANNED_PROCESSING_RATE = 800;
/** What starting one load process costs between runs, in seconds (tsx, autocannon), for sizing the backlog. */
const LOAD_START_SECONDS = 1.5;
/** The workers' unrecorded warm-up once they process (below), in milliseconds. */
const WORKER_WARM_UP_MS = 3_000;

interface Snapshot {
  at: number;
  web: number;
  workers: number;
  postgres: number;
  redis: number;
  processed: number;
}

export async function measureTopology(options: TopologyOptions): Promise<Figure[]> {
  const { pool, shop, say } = options;
  const hz = ticksPerSecond();
  const webs: Array<{ base: string; child: Child }> = [];
  const workers: Child[] = [];
  const figures: Figure[] = [];
  const shape = `${options.webProcesses} web + ${options.workerProcesses} worker process${options.workerProcesses === 1 ? '' : 'es'}`;

  const count = async (status: 'received' | 'processed' | 'failed') =>
    Number(
      (
        await pool.query<{ n: string }>(
          'select count(*)::text as n from webhook_receipts where shop = $1 and status = $2',
          [shop, status],
        )
      ).rows[0]!.n,
    );
  // The processing window's run-out check, four times a second: an index probe (the pending
  // receipts' partial index), where a count would read the whole backlog each time and charge
  // PostgreSQL's CPU per webhook with the bench's own work (0.39 ms of 5.2 ms when it counted).
  const backlogEmpty = async () =>
    (
      await pool.query<{ empty: boolean }>(
        "select not exists (select 1 from webhook_receipts where shop = $1 and status = 'received') as empty",
        [shop],
      )
    ).rows[0]!.empty;
  const snapshot = async (): Promise<Snapshot> => ({
    at: performance.now(),
    web: sum(webs.map((w) => processTicks(w.child.process.pid!))),
    workers: sum(workers.map((w) => processTicks(w.process.pid!))),
    postgres: options.postgresPid ? processTreeTicks(options.postgresPid) : 0,
    redis: options.redisPid ? processTicks(options.redisPid) : 0,
    processed: await count('processed'),
  });
  const ms = (before: number, after: number, work: number) => cpuMsPer(before, after, work, hz);
  /** One load on every web process at once (each its own autocannon process), summed. */
  const intake = async (seconds: number): Promise<LoadResult> => {
    const results = await Promise.all(
      webs.map((web) =>
        withDeadline(
          runLoad({
            base: web.base,
            kind: 'orders-create-webhook',
            shop,
            secret: options.secret,
            seconds,
            connections: options.connections,
          }),
          (seconds + 60) * 1000,
          `a ${seconds} s webhook load on ${web.base}`,
        ),
      ),
    );
    return {
      okPerSecond: sum(results.map((r) => r.okPerSecond)),
      ok: sum(results.map((r) => r.ok)),
      non2xx: sum(results.map((r) => r.non2xx)),
      errors: sum(results.map((r) => r.errors)),
      timeouts: sum(results.map((r) => r.timeouts)),
      latencyP50Ms: median(results.map((r) => r.latencyP50Ms)),
      latencyP99Ms: Math.max(...results.map((r) => r.latencyP99Ms)),
      startedAt: Math.min(...results.map((r) => r.startedAt)),
      finishedAt: Math.max(...results.map((r) => r.finishedAt)),
    };
  };
  const serviceDir = path.join(options.dataDir, 'service');

  try {
    say(`topology: starting ${options.webProcesses} web process(es) (bin/start.ts, WORKERS=off)`);
    for (let i = 0; i < options.webProcesses; i++)
      webs.push(
        await startBenchService({
          port: await freePort(),
          databaseEnv: options.databaseEnv,
          redisUrl: options.redisUrl,
          dataDir: options.dataDir,
          env: { WORKERS: 'off' },
        }),
      );
    // Three seconds unrecorded: the first requests compile the route's code, and on a busy machine a
    // single second left the floor's CPU per webhook inflated by it. What they take in joins the backlog.
    await intake(3);

    // 1. The floor: intake with nothing processing.
    const floorRuns: Array<{ load: LoadResult; before: Snapshot; after: Snapshot }> = [];
    for (let run = 0; run < options.runs; run++) {
      const before = await snapshot();
      const load = await intake(options.loadSeconds);
      floorRuns.push({ load, before, after: await snapshot() });
    }
    const floorRate = median(floorRuns.map((r) => r.load.okPerSecond));
    const floorWebMs = median(floorRuns.map((r) => ms(r.before.web, r.after.web, r.load.ok) ?? Number.NaN));
    const floorPgMs = median(floorRuns.map((r) => ms(r.before.postgres, r.after.postgres, r.load.ok) ?? Number.NaN));
    const floorRedisMs = median(floorRuns.map((r) => ms(r.before.redis, r.after.redis, r.load.ok) ?? Number.NaN));
    const floorProblems = floorRuns.map((r) => loadProblem(r.load)).filter((p): p is string => p !== undefined);
    const floorUnprocessed = floorRuns.some((r) => r.after.processed !== r.before.processed);
    figures.push({
      id: 'topology.intake-floor',
      label: `Topology: webhook intake floor, no worker running (${shape})`,
      value: floorRate,
      unit: 'req/s',
      note: `${runsNote(floorRuns.map((r) => r.load))}; CPU per accepted webhook: web ${cpu(floorWebMs)}, PostgreSQL ${cpu(floorPgMs)}, Redis ${cpu(floorRedisMs)}`,
      beside: `web ${cpu(floorWebMs)} CPU/webhook`,
      ...(floorProblems.length > 0 || floorUnprocessed
        ? {
            problem: [
              ...floorProblems,
              floorUnprocessed ? 'webhooks were processed while no worker ran (another consumer of the queue?)' : '',
            ]
              .filter(Boolean)
              .join('; '),
          }
        : {}),
    });
    say(`topology: intake floor ${Math.round(floorRate)}/s, web ${cpu(floorWebMs)} CPU per webhook`);

    // A backlog that outlasts the draining runs and the processing window, even at well over 300/s.
    const wanted = Math.ceil(
      PLANNED_PROCESSING_RATE *
        (options.runs * (options.loadSeconds + LOAD_START_SECONDS) +
          options.sustainedSeconds +
          LOAD_START_SECONDS +
          WORKER_WARM_UP_MS / 1000),
    );
    // In pieces of at most 10 s, since the floor's rate is a poor guess on a busy machine; 2 minutes at most.
    const fillUntil = Date.now() + 120_000;
    while (Date.now() < fillUntil) {
      const backlog = await count('received');
      if (backlog >= wanted) break;
      const seconds = Math.min(10, Math.ceil((wanted - backlog) / Math.max(floorRate, 100)) + 1);
      say(`topology: adding to the backlog (${backlog} of ${wanted} webhooks): ${seconds} s of intake`);
      await intake(seconds);
    }
    const backlogBefore = await count('received');

    // 2. Workers start and drain the backlog; the intake is measured again meanwhile.
    say(
      `topology: starting ${options.workerProcesses} worker process(es) (bin/worker.ts) on a backlog of ${backlogBefore}`,
    );
    for (let i = 0; i < options.workerProcesses; i++) {
      const metricsPort = await freePort();
      workers.push(
        await startChild(
          'bin/worker.ts',
          [],
          {
            ...options.databaseEnv,
            REDIS_URL: options.redisUrl,
            // The web process's: one token key file and one e-mail outbox for the whole deployment.
            DATA_DIR: serviceDir,
            CARRIER_SANDBOX: 'on',
            CARRIER_SANDBOX_URL: `${webs[0]!.base}/sandbox`,
            PORT: String(await freePort()),
            METRICS_PORT: String(metricsPort),
            LOG_LEVEL: 'warn',
            UPS_QUOTA: '100000/1s',
          },
          `http://127.0.0.1:${metricsPort}/healthz`,
        ),
      );
    }
    // Its /healthz answers just before its workers start: draining has begun once receipts get processed.
    const startedFrom = await count('processed');
    await waitUntil(
      async () => (await count('processed')) > startedFrom,
      60_000,
      'the workers to process a first webhook',
    );
    // Three seconds more, unrecorded, as for the web process: a worker's first seconds compile its
    // code (tsx, then the JIT) and open its pools, at over half a core each on this machine; a drain
    // run right after measured that start-up, not workers draining (a deploy, not the steady state).
    await new Promise((resolve) => setTimeout(resolve, WORKER_WARM_UP_MS));

    const drainRuns: Array<{ load: LoadResult; before: Snapshot; after: Snapshot; backlogAfter: number }> = [];
    for (let run = 0; run < options.runs; run++) {
      const before = await snapshot();
      const load = await intake(options.loadSeconds);
      const after = await snapshot();
      drainRuns.push({ load, before, after, backlogAfter: await count('received') });
    }
    const drainRate = median(drainRuns.map((r) => r.load.okPerSecond));
    const drainWebMs = median(drainRuns.map((r) => ms(r.before.web, r.after.web, r.load.ok) ?? Number.NaN));
    const processedDuring = drainRuns.map((r) => r.after.processed - r.before.processed);
    const processedDuringRate = median(
      drainRuns.map((r, i) => (processedDuring[i]! * 1000) / (r.after.at - r.before.at)),
    );
    const drainWorkerMs = median(
      drainRuns.map((r, i) => ms(r.before.workers, r.after.workers, processedDuring[i]!) ?? Number.NaN),
    );
    const drainPgMs = median(
      drainRuns.map((r, i) => ms(r.before.postgres, r.after.postgres, r.load.ok + processedDuring[i]!) ?? Number.NaN),
    );
    const ranOut = drainRuns.filter((r) => r.backlogAfter === 0).length;
    const drainProblems = [
      ...drainRuns.map((r) => loadProblem(r.load)).filter((p): p is string => p !== undefined),
      ranOut > 0
        ? `the backlog ran out in ${ranOut} of ${drainRuns.length} runs: the workers were not draining throughout`
        : '',
    ].filter(Boolean);
    figures.push({
      id: 'topology.intake-draining',
      label: `Topology: webhook intake while the workers drain a backlog (${shape})`,
      value: drainRate,
      unit: 'req/s',
      note: `${runsNote(drainRuns.map((r) => r.load))}; backlog ${drainRuns.map((r) => r.backlogAfter).join(', ')} after each run; CPU per accepted webhook: web ${cpu(drainWebMs)} (${cpu(floorWebMs)} with no worker running)`,
      beside: `web ${cpu(drainWebMs)} CPU/webhook, ${cpu(floorWebMs)} at the floor`,
      ...(drainProblems.length > 0 ? { problem: drainProblems.join('; ') } : {}),
    });
    figures.push({
      id: 'topology.processed-during-intake',
      label: 'Topology: webhooks processed per second while the intake runs',
      value: processedDuringRate,
      unit: '/s',
      note: `CPU per processed webhook: workers ${cpu(drainWorkerMs)}; PostgreSQL ${cpu(drainPgMs)} per webhook accepted or processed`,
    });
    say(
      `topology: intake while draining ${Math.round(drainRate)}/s (${formatNumber(drainRate / floorRate)}× the floor), web ${cpu(drainWebMs)} CPU per webhook; ${Math.round(processedDuringRate)}/s processed meanwhile`,
    );

    // 3. Processing sustained: the workers alone on the backlog for the window, which ends early only if it runs out.
    say(`topology: processing for ${options.sustainedSeconds} s on a backlog of ${await count('received')}`);
    const windowStart = await snapshot();
    let ranOutAfter: number | null = null;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const elapsed = (performance.now() - windowStart.at) / 1000;
      if (elapsed >= options.sustainedSeconds) break;
      if (await backlogEmpty()) {
        ranOutAfter = elapsed;
        break;
      }
    }
    const windowEnd = await snapshot();
    const processed = windowEnd.processed - windowStart.processed;
    const windowSeconds = (windowEnd.at - windowStart.at) / 1000;
    const workerMs = ms(windowStart.workers, windowEnd.workers, processed);
    const pgMs = ms(windowStart.postgres, windowEnd.postgres, processed);
    const redisMs = ms(windowStart.redis, windowEnd.redis, processed);
    const webIdleMs = ms(windowStart.web, windowEnd.web, processed);

    // Stopped gracefully (jobs in hand finish) before the outcome is counted.
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    const failed = await count('failed');
    const processedTotal = await count('processed');
    const { rows } = await pool.query<{ n: string }>(
      'select count(*)::text as n from shopify_order_links where shop = $1',
      [shop],
    );
    const videoOrders = Number(rows[0]!.n);
    const processingProblems = [
      ranOutAfter !== null
        ? `the backlog ran out after ${ranOutAfter.toFixed(1)} s of the ${options.sustainedSeconds} s window: not sustained`
        : '',
      failed > 0 ? `${failed} webhooks failed processing` : '',
      videoOrders < processedTotal ? `${processedTotal - videoOrders} processed webhooks made no video order` : '',
    ].filter(Boolean);
    figures.push({
      id: 'topology.processed',
      label: `Topology: webhooks processed per second, sustained (${shape}, no intake)`,
      value: processed / windowSeconds,
      unit: '/s',
      note: `${processed} orders/create webhooks in ${windowSeconds.toFixed(1)} s, each a video order (${videoOrders} video orders for ${processedTotal} processed in the step); CPU per processed webhook: workers ${cpu(workerMs)}, PostgreSQL ${cpu(pgMs)}, Redis ${cpu(redisMs)}, idle web ${cpu(webIdleMs)}`,
      beside: `workers ${cpu(workerMs)}, PostgreSQL ${cpu(pgMs)} CPU/webhook`,
      ...(processingProblems.length > 0 ? { problem: processingProblems.join('; ') } : {}),
    });
    for (const [id, label, value] of [
      ['topology.cpu.web-floor', 'Topology: web CPU per accepted webhook, no worker running', floorWebMs],
      ['topology.cpu.web-draining', 'Topology: web CPU per accepted webhook while the workers drain', drainWebMs],
      ['topology.cpu.worker', 'Topology: worker CPU per processed webhook (sustained window)', workerMs],
      ['topology.cpu.postgres', 'Topology: PostgreSQL CPU per processed webhook (sustained window)', pgMs],
    ] as const)
      figures.push({ id, label, value: value !== null && Number.isFinite(value) ? value : null, unit: 'ms' });
    say(
      `topology: ${Math.round(processed / windowSeconds)}/s processed over ${windowSeconds.toFixed(1)} s; workers ${cpu(workerMs)}, PostgreSQL ${cpu(pgMs)} CPU per webhook`,
    );
    return figures;
  } finally {
    // Success, failure or a limit reached: no process of this step outlives it.
    await Promise.allSettled([...workers, ...webs.map((w) => w.child)].map((child) => child.stop()));
  }
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function cpu(value: number | null): string {
  return value === null || !Number.isFinite(value) ? '—' : `${formatNumber(value)} ms`;
}

function runsNote(loads: LoadResult[]): string {
  const rates = loads.map((l) => Math.round(l.okPerSecond));
  return `${loads.length > 1 ? `median of ${rates.join(', ')}; ` : ''}p50 ${median(loads.map((l) => l.latencyP50Ms))} ms, p99 ${median(loads.map((l) => l.latencyP99Ms))} ms`;
}

/** Polls `done` every 100 ms; fails naming `what` past `limitMs`. */
async function waitUntil(done: () => Promise<boolean>, limitMs: number, what: string): Promise<void> {
  const from = Date.now();
  while (!(await done())) {
    if (Date.now() - from > limitMs) throw new Error(`gave up after ${limitMs / 1000} s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
