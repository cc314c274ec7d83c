import { Queue, Worker, type ConnectionOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Services } from '../src/app.ts';
import { carrierBudgets } from '../src/carriers/budget.ts';
import { CARRIER_CODES, type CarrierCode } from '../src/carriers/carrier-code.ts';
import { createRedisConnection } from '../src/redis/connection.ts';
import { claimTrackingProcessor } from './claim-tracking.ts';
import { pollTrackingBatchProcessor } from './poll-tracking-batch.ts';
import { reenqueueUnprocessedWebhooks, SHOPIFY_WEBHOOK_QUEUE } from '../src/shopify/index.ts';
import { unsettledVideos } from '../src/videos/videos.ts';
import { CLAIM_LEASE_MS } from '../src/tracking/poller.ts';
import { openClaims, releaseClaim } from '../src/tracking/trackings.ts';
import { shopifyWebhookProcessor } from './shopify-webhooks.ts';
import { dispatchSendsProcessor } from './dispatch-sends.ts';
import { processVideoProcessor, VIDEO_PROCESSING_QUEUE } from './process-video.ts';
import { CLAIM_EVERY_MS, DEFAULT_JOB_OPTIONS, DISPATCH_EVERY_MS, pollJobId, SENDS_QUEUE, TRACKING_CLAIM_QUEUE, trackingQueueName } from './queues.ts';

export interface RunningWorkers {
  close(): Promise<void>;
  /** Re-creates the schedulers (what the reconciler does every minute); exposed for tests. */
  reconcile(): Promise<void>;
}

export interface WorkerOptions {
  redisUrl: string;
  /** Key prefix; default QUEUE_PREFIX. Tests give each app its own so runs sharing a Redis never meet. */
  prefix?: string;
  /** Override of the claim cadence (tests). */
  claimEveryMs?: number;
  /** Override of the send dispatch cadence (tests). */
  dispatchEveryMs?: number;
  /** How often the reconciler re-asserts the schedulers; default one minute. */
  reconcileEveryMs?: number;
}

/**
 * Starts every BullMQ worker of the system in this process. Redis holds only queue state: the
 * packages to poll and when are rows in PostgreSQL, so the reconciler — re-asserting the
 * repeatable claim jobs every minute — is all it takes to recover from a Redis that lost its data.
 */
export async function startWorkers(services: Services, options: WorkerOptions): Promise<RunningWorkers> {
  const { logger } = services;
  const prefix = options.prefix ?? services.config.queuePrefix;
  let lastRedisError = 0;
  const onRedisError = (error: Error) => {
    // A Redis outage produces an error per reconnect attempt; one line every 10 s is enough.
    if (Date.now() - lastRedisError < 10_000) return;
    lastRedisError = Date.now();
    logger.warn({ err: error }, 'redis connection error; work pauses until it is back (nothing is lost: PostgreSQL holds the schedule)');
  };
  // BullMQ does not close connections it was handed, so we keep them and close them ourselves.
  const connections: Redis[] = [];
  const connection = (): ConnectionOptions => {
    const redis = createRedisConnection(options.redisUrl, 'worker', onRedisError);
    connections.push(redis);
    return redis;
  };
  const producer = connection() as Redis;

  const batchQueues = Object.fromEntries(
    CARRIER_CODES.map((carrier) => [carrier, new Queue(trackingQueueName(carrier), { connection: producer, prefix, defaultJobOptions: DEFAULT_JOB_OPTIONS })]),
  ) as Record<CarrierCode, Queue>;
  const claimQueue = new Queue(TRACKING_CLAIM_QUEUE, { connection: producer, prefix, defaultJobOptions: { ...DEFAULT_JOB_OPTIONS, attempts: 1 } });

  const sendsQueue = new Queue(SENDS_QUEUE, { connection: producer, prefix, defaultJobOptions: { ...DEFAULT_JOB_OPTIONS, attempts: 1 } });

  const workers: Worker[] = [];
  workers.push(new Worker(VIDEO_PROCESSING_QUEUE, processVideoProcessor(services.videos, logger), { connection: connection(), prefix, concurrency: 2 }));
  workers.push(new Worker(SHOPIFY_WEBHOOK_QUEUE, shopifyWebhookProcessor(services.shopify.processing, logger), { connection: connection(), prefix, concurrency: 4 }));
  // One dispatch at a time per process is plenty; several processes are safe (claims use SKIP LOCKED).
  workers.push(new Worker(SENDS_QUEUE, dispatchSendsProcessor(services.dispatcher, logger), { connection: connection(), prefix, concurrency: 1 }));
  const limits = carrierBudgets(services.config.carrierQuotas, services.sandboxedCarriers);
  workers.push(new Worker(TRACKING_CLAIM_QUEUE, claimTrackingProcessor(services.poller, batchQueues, limits, logger), { connection: connection(), prefix, concurrency: 3 }));
  // No BullMQ limiter: the carrier clients hold every call (polls and validation) to the budget.
  for (const carrier of CARRIER_CODES) {
    workers.push(new Worker(trackingQueueName(carrier), pollTrackingBatchProcessor(services.poller, logger), { connection: connection(), prefix, concurrency: 4 }));
  }
  for (const worker of workers) {
    worker.on('error', (error) => logger.error({ err: error, queue: worker.name }, 'worker error'));
    worker.on('failed', (job, error) => logger.warn({ queue: worker.name, jobId: job?.id, err: error }, 'job failed'));
  }

  const reconcile = async () => {
    await sendsQueue.upsertJobScheduler('dispatch-sends', { every: options.dispatchEveryMs ?? DISPATCH_EVERY_MS }, { name: 'dispatch', data: {} });
    // Uploads whose processing was lost (Redis restart, failed enqueue, a job that gave up) go again.
    for (const video of await unsettledVideos(services.database.db, { olderThan: new Date(Date.now() - 60_000) })) await services.videoQueue.enqueue(video.id);
    // Claims whose poll job was lost (Redis restarted empty) would hold their packages until the
    // lease lapses (10 min); give them back as soon as we see the job is gone.
    for (const claim of await openClaims(services.database.db, new Date(), CLAIM_LEASE_MS, 30_000)) {
      if (!(await batchQueues[claim.carrier].getJob(pollJobId(claim.token)))) {
        const released = await releaseClaim(services.database.db, claim.token);
        logger.warn({ carrier: claim.carrier, packages: released }, 'released packages whose poll job was lost');
      }
    }
    // Webhook receipts stored while Redis was away (or whose job was lost) are processed again.
    await reenqueueUnprocessedWebhooks(services.database.db, services.shopify.deps.enqueue!);
    const stuck = await services.dispatcher.reconcileStuck();
    if (stuck.released + stuck.uncertain > 0) logger.warn(stuck, 'reconciled sends interrupted by a crash');
    for (const carrier of CARRIER_CODES) {
      const every = options.claimEveryMs ?? (services.sandboxedCarriers.includes(carrier) ? CLAIM_EVERY_MS.sandbox : CLAIM_EVERY_MS.carrier);
      await claimQueue.upsertJobScheduler(`claim-${carrier}`, { every }, { name: 'claim', data: { carrier } });
    }
  };
  await reconcile();
  const reconciler = setInterval(() => {
    reconcile().catch((error: unknown) => logger.warn({ err: error }, 'reconciler could not reach Redis; will retry'));
  }, options.reconcileEveryMs ?? 60_000);
  logger.info({ sandboxed: services.sandboxedCarriers }, 'workers started');

  return {
    reconcile,
    async close() {
      clearInterval(reconciler);
      await Promise.all(workers.map((worker) => worker.close()));
      await Promise.all([claimQueue, sendsQueue, ...Object.values(batchQueues)].map((queue) => queue.close()));
      for (const redis of connections) redis.disconnect();
    },
  };
}
