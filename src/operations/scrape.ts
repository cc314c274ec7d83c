import type { Queue } from 'bullmq';
import { Gauge } from 'prom-client';
import { CARRIER_CODES, type CarrierCode } from '../carriers/carrier-code.ts';
import type { CarrierCallBudget } from '../carriers/clients/types.ts';
import type { Db } from '../db/database.ts';
import type { Metrics } from './metrics.ts';

/** A package due this long ago and not claimed is overdue: the claim tick runs every minute for real carriers. */
export const POLL_OVERDUE_AFTER_MS = 5 * 60_000;
/** A scrape must not hang on a dependency; a source that does not answer is reported down. */
const SOURCE_TIMEOUT_MS = 1_000;

/** The queue states an operator watches. */
const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
type QueueState = (typeof QUEUE_STATES)[number];

export interface ScrapeSources {
  db: Db;
  queues: readonly Queue[];
  quota: Record<CarrierCode, CarrierCallBudget>;
  now: () => Date;
}

interface Snapshot {
  up: { postgres: boolean; redis: boolean };
  queues: Array<{ name: string; counts: Record<QueueState, number>; oldestWaitingSeconds: number }> | null;
  quotaLeft: Array<{ carrier: CarrierCode; left: number }> | null;
  tracked: Array<{ carrier: string; status: string; count: number }> | null;
  overdue: Record<string, number> | null;
  webhooksWaiting: number | null;
}

/**
 * Gauges read when Prometheus scrapes, not kept up to date by the code that changes them: queue
 * depth from BullMQ, packages and webhook receipts from indexed PostgreSQL queries (the partial
 * indexes `trackings_due` and `webhook_receipts_pending`), the carriers' budgets from Redis. Each
 * scrape reads once (the gauges share one snapshot); a source that fails leaves its series out and
 * sets `doorstep_scrape_source_up{source}` to 0, so an outage shows as such instead of as zero.
 */
export function registerScrapeGauges(metrics: Metrics, sources: ScrapeSources): void {
  const registers = [metrics.registry];
  // prom-client collects every metric of a scrape at once: the first gauge starts the reads, the
  // others join the same promise.
  let current: Promise<Snapshot> | null = null;
  const snapshot = () =>
    (current ??= readSnapshot(sources).finally(() => {
      current = null;
    }));

  new Gauge({
    name: 'doorstep_queue_jobs',
    help: 'Jobs per BullMQ queue and state (waiting, active, delayed, failed).',
    labelNames: ['queue', 'state'] as const,
    registers,
    async collect() {
      this.reset();
      for (const queue of (await snapshot()).queues ?? [])
        for (const state of QUEUE_STATES) this.set({ queue: queue.name, state }, queue.counts[state]);
    },
  });

  new Gauge({
    name: 'doorstep_queue_oldest_waiting_seconds',
    help: 'Age of the oldest waiting job per queue (since it became waiting); 0 when none waits.',
    labelNames: ['queue'] as const,
    registers,
    async collect() {
      this.reset();
      for (const queue of (await snapshot()).queues ?? []) this.set({ queue: queue.name }, queue.oldestWaitingSeconds);
    },
  });

  new Gauge({
    name: 'doorstep_carrier_quota_left',
    help: "Tracking calls left in the carrier account's current budget window (shared by every process).",
    labelNames: ['carrier'] as const,
    registers,
    async collect() {
      this.reset();
      for (const { carrier, left } of (await snapshot()).quotaLeft ?? []) this.set({ carrier }, left);
    },
  });

  new Gauge({
    name: 'doorstep_tracked_packages',
    help: 'Packages being tracked (polling not stopped) by carrier and last carrier status.',
    labelNames: ['carrier', 'status'] as const,
    registers,
    async collect() {
      this.reset();
      for (const row of (await snapshot()).tracked ?? [])
        this.set({ carrier: row.carrier, status: row.status }, row.count);
    },
  });

  new Gauge({
    name: 'doorstep_packages_overdue',
    help: `Packages whose poll was due over ${POLL_OVERDUE_AFTER_MS / 60_000} minutes ago and that no poller holds, by carrier.`,
    labelNames: ['carrier'] as const,
    registers,
    async collect() {
      this.reset();
      const overdue = (await snapshot()).overdue;
      if (overdue) for (const carrier of CARRIER_CODES) this.set({ carrier }, overdue[carrier] ?? 0);
    },
  });

  new Gauge({
    name: 'doorstep_webhook_receipts_waiting',
    help: 'Shopify webhooks stored but not processed yet.',
    registers,
    async collect() {
      this.reset();
      const waiting = (await snapshot()).webhooksWaiting;
      if (waiting !== null) this.set(waiting);
    },
  });

  new Gauge({
    name: 'doorstep_scrape_source_up',
    help: 'Whether each scrape-time source (postgres, redis) answered every read of this scrape.',
    labelNames: ['source'] as const,
    registers,
    async collect() {
      const { up } = await snapshot();
      this.set({ source: 'postgres' }, up.postgres ? 1 : 0);
      this.set({ source: 'redis' }, up.redis ? 1 : 0);
    },
  });
}

async function readSnapshot(sources: ScrapeSources): Promise<Snapshot> {
  const now = sources.now();
  const [queues, quotaLeft, tracked, overdue, webhooksWaiting] = await Promise.all([
    within(() => readQueues(sources.queues, now)),
    within(() => readQuota(sources.quota)),
    within(() => readTracked(sources.db)),
    within(() => readOverdue(sources.db, now)),
    within(() => readWebhooksWaiting(sources.db)),
  ]);
  return {
    up: {
      postgres: tracked !== null && overdue !== null && webhooksWaiting !== null,
      redis: queues !== null && quotaLeft !== null,
    },
    queues,
    quotaLeft,
    tracked,
    overdue,
    webhooksWaiting,
  };
}

async function readQueues(queues: readonly Queue[], now: Date): Promise<NonNullable<Snapshot['queues']>> {
  return Promise.all(
    queues.map(async (queue) => {
      const [counts, [oldest]] = await Promise.all([
        queue.getJobCounts(...QUEUE_STATES),
        queue.getJobs(['wait'], 0, 0, true),
      ]);
      // A delayed job became waiting when its delay ran out, not when it was added.
      const since = oldest ? oldest.timestamp + (oldest.opts.delay ?? 0) : now.getTime();
      return {
        name: queue.name,
        counts: Object.fromEntries(QUEUE_STATES.map((state) => [state, counts[state] ?? 0])) as Record<
          QueueState,
          number
        >,
        oldestWaitingSeconds: Math.max(0, (now.getTime() - since) / 1_000),
      };
    }),
  );
}

async function readQuota(quota: ScrapeSources['quota']): Promise<NonNullable<Snapshot['quotaLeft']>> {
  const rows: NonNullable<Snapshot['quotaLeft']> = [];
  for (const carrier of CARRIER_CODES) {
    const left = quota[carrier].left;
    if (left) rows.push({ carrier, left: await left() });
  }
  return rows;
}

async function readTracked(db: Db): Promise<NonNullable<Snapshot['tracked']>> {
  const rows = await db
    .selectFrom('trackings')
    .select(['carrier', 'status', (eb) => eb.fn.countAll<string>().as('count')])
    .where('next_poll_at', 'is not', null)
    .groupBy(['carrier', 'status'])
    .execute();
  return rows.map((row) => ({ carrier: row.carrier, status: row.status ?? 'unknown', count: Number(row.count) }));
}

async function readOverdue(db: Db, now: Date): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('trackings')
    .select(['carrier', (eb) => eb.fn.countAll<string>().as('count')])
    .where('next_poll_at', '<=', new Date(now.getTime() - POLL_OVERDUE_AFTER_MS))
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .groupBy('carrier')
    .execute();
  return Object.fromEntries(rows.map((row) => [row.carrier, Number(row.count)]));
}

async function readWebhooksWaiting(db: Db): Promise<number> {
  const row = await db
    .selectFrom('webhook_receipts')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('status', '=', 'received')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The read's value, or null when it failed or took longer than the scrape may wait. */
async function within<T>(read: () => Promise<T>): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      read(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), SOURCE_TIMEOUT_MS);
      }),
    ]);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}
