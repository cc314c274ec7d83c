import { Worker, type Processor, type WorkerOptions as BullWorkerOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Services } from '../src/app.ts';
import { carrierBudgets } from '../src/carriers/budget.ts';
import { CARRIER_CODES } from '../src/carriers/carrier-code.ts';
import { EVERY_MS, jobIds, QUEUE_NAMES, trackingQueueName } from '../src/queues/queues.ts';
import { RedisStateLog } from '../src/queues/redis-state-log.ts';
import { ProcessingThrottle } from '../src/shopify/intake/intake-priority.ts';
import { OtherIntakes } from '../src/shopify/intake/intake-reports.ts';
import { createRedisConnection } from '../src/redis/connection.ts';
import { claimTrackingProcessor } from './claim-tracking.ts';
import { deliverOrderEventsProcessor } from './deliver-order-events.ts';
import { dispatchSendsProcessor } from './dispatch-sends.ts';
import { pollTrackingBatchProcessor } from './poll-tracking-batch.ts';
import { processVideoProcessor } from './process-video.ts';
import { recordUsageChargeProcessor } from './record-usage-charge.ts';
import { shopifyWebhookProcessor } from './shopify-webhooks.ts';

export interface RunningWorkers {
  /**
   * Stops picking jobs and waits for the ones in flight to finish and be recorded. `force` is for
   * when Redis is already gone: the running processors still finish, but their results are not
   * recorded in Redis (which would wait forever); the jobs stay active there and come back as
   * stalled, and PostgreSQL's reconcilers cover the rest.
   */
  close(options?: { force?: boolean }): Promise<void>;
  /** Re-asserts the schedules and runs every domain's reconcile (what happens every minute); exposed for tests. */
  reconcile(): Promise<void>;
}

export interface WorkerOptions {
  /** Override of the claim cadence (tests). */
  claimEveryMs?: number;
  /** Override of the send dispatch cadence (tests). */
  dispatchEveryMs?: number;
  /** How often the reconciler runs; default RECONCILE_EVERY_MS (one minute). */
  reconcileEveryMs?: number;
}

/**
 * Starts every BullMQ worker of the system in this process, and the reconciler. Redis holds only
 * queue state: what to do is in PostgreSQL, so re-asserting the schedules and letting each domain
 * hand over its unfinished work again (`reconcile()`) is all it takes to recover from a Redis that
 * lost its data.
 */
export async function startWorkers(services: Services, options: WorkerOptions = {}): Promise<RunningWorkers> {
  const { logger, queues } = services;
  const { queuePrefix: prefix, redisUrl } = services.config;
  if (!redisUrl)
    throw new Error('startWorkers needs config.redisUrl (npm start starts a private Redis when REDIS_URL is unset)');
  const redisState = new RedisStateLog(logger, 'workers');
  // Each worker blocks on its own connection, which retries forever (a Redis outage pauses work).
  // BullMQ does not close connections it was handed, so we keep them and close them ourselves.
  const connections: Redis[] = [];
  const workers: Worker[] = [];
  // The processors running now, so a forced close can still let them finish their PostgreSQL work.
  const inFlight = new Set<Promise<unknown>>();
  const tracked =
    (processor: Processor): Processor =>
    (job, token) => {
      const running = Promise.resolve(processor(job, token));
      inFlight.add(running);
      running.then(
        () => inFlight.delete(running),
        () => inFlight.delete(running),
      );
      return running;
    };
  const startWorker = (
    name: string,
    processor: Processor,
    settings: Omit<BullWorkerOptions, 'connection' | 'prefix'>,
  ): Worker => {
    const connection = createRedisConnection(redisUrl, 'worker');
    redisState.watch(connection);
    connections.push(connection);
    const worker = new Worker(name, tracked(processor), { connection, prefix, ...settings });
    worker.on('error', (error) => redisState.failed(error));
    workers.push(worker);
    return worker;
  };

  const budgets = carrierBudgets(services.config.carrierQuotas, services.sandboxedCarriers);

  // Transcoding is CPU-bound: VIDEO_PROCESSING_CONCURRENCY encodes per worker process (default 1).
  startWorker(QUEUE_NAMES.videoProcessing, processVideoProcessor(services.videos, logger), {
    concurrency: services.config.videos.rendition.concurrency,
  });
  // Webhook processing steps aside while an intake is busy: this process's (intake-priority.ts) and
  // the web processes', as they report it (intake-reports.ts).
  const otherIntakes = new OtherIntakes(services.intakeReports);
  const webhookThrottle = new ProcessingThrottle({
    max: services.config.shopifyWebhookConcurrency,
    intake: services.shopify.intakeLoad,
    elsewhere: otherIntakes,
    observeLevel: (level) => services.metrics.webhookProcessingLevel.set({ queue: QUEUE_NAMES.shopifyWebhooks }, level),
    // Called from its timer, first after the worker below exists.
    setConcurrency: (concurrency) => (webhookWorker.concurrency = concurrency),
  });
  const processWebhook = shopifyWebhookProcessor(services.shopify.processing, logger);
  const webhookWorker = startWorker(
    QUEUE_NAMES.shopifyWebhooks,
    async (job) => {
      await webhookThrottle.admission();
      return processWebhook(job);
    },
    { concurrency: services.config.shopifyWebhookConcurrency },
  );
  startWorker(QUEUE_NAMES.billing, recordUsageChargeProcessor(services.billing, logger), { concurrency: 2 });
  // One dispatch and one relay at a time per process is plenty; several processes are safe (claims
  // and outbox rows are taken with SKIP LOCKED).
  // While webhook processing yields to a pressed intake, so do the messages that can wait.
  startWorker(
    QUEUE_NAMES.sends,
    dispatchSendsProcessor(services.dispatcher, logger, {
      notWatched: services.notWatched,
      holdOthers: () => webhookThrottle.yielding,
    }),
    { concurrency: 1 },
  );
  startWorker(QUEUE_NAMES.orderEvents, deliverOrderEventsProcessor(services.orderOutbox, logger), { concurrency: 1 });
  const claimTracking = claimTrackingProcessor(services.poller, queues.tracking, budgets, logger, services.push);
  startWorker(QUEUE_NAMES.trackingClaim, claimTracking, { concurrency: 3 });
  // No BullMQ limiter: the carrier clients hold every call (polls and validation) to the budget.
  for (const carrier of CARRIER_CODES)
    startWorker(trackingQueueName(carrier), pollTrackingBatchProcessor(services.poller, logger), { concurrency: 4 });
  for (const worker of workers)
    worker.on('failed', (job, error) => logger.warn({ queue: worker.name, jobId: job?.id, err: error }, 'job failed'));

  const reconcile = async () => {
    await queues.sends.upsertJobScheduler(
      'dispatch-sends',
      { every: options.dispatchEveryMs ?? EVERY_MS.dispatchSends },
      { name: 'dispatch', data: {} },
    );
    await queues.orderEvents.upsertJobScheduler(
      'deliver-order-events',
      { every: EVERY_MS.deliverOrderEvents },
      { name: 'deliver', data: {} },
    );
    for (const carrier of CARRIER_CODES) {
      const every =
        options.claimEveryMs ??
        (services.sandboxedCarriers.includes(carrier)
          ? EVERY_MS.claimTracking.sandbox
          : EVERY_MS.claimTracking.carrier);
      await queues.trackingClaim.upsertJobScheduler(
        `claim-${carrier}`,
        { every },
        { name: 'claim', data: { carrier } },
      );
    }
    await services.videos.reconcile();
    await services.poller.reconcile(
      async (carrier, token) => (await queues.tracking[carrier].getJob(jobIds.poll(token))) !== undefined,
    );
    await services.shopify.reconcile();
    await services.dispatcher.reconcile();
    // E-mail provider events the receiving process did not get to apply (it stopped, or failed). Its
    // failure is logged and must not keep billing from its turn.
    await services.emailEvents
      .processPending()
      .catch((error: unknown) =>
        logger.warn({ err: error }, 'could not apply pending e-mail events; retried next run'),
      );
    await services.billing.reconcile();
    await services.videos.deleteExpiredOriginals(services.config.videos.originalRetentionDays);
  };
  await reconcile();
  const reconcileEveryMs = options.reconcileEveryMs ?? services.config.reconcileEveryMs;
  const reconciler = setInterval(() => {
    reconcile().catch((error: unknown) =>
      logger.warn({ err: error, retryInMs: reconcileEveryMs }, 'the reconciler could not finish; it runs again'),
    );
  }, reconcileEveryMs);
  logger.info({ sandboxed: services.sandboxedCarriers }, 'workers started');

  return {
    reconcile,
    async close({ force = false } = {}) {
      clearInterval(reconciler);
      // An encode running now is killed rather than waited for; its job runs again on the next start.
      services.videos.stop();
      webhookThrottle.stop();
      await otherIntakes.stop();
      if (force) {
        // Redis is gone: recording a result there would wait forever (BullMQ's own close included).
        // Let the running processors finish their PostgreSQL work (a send marked sent), then drop
        // the connections; the jobs, still active in Redis, come back as stalled (processors are
        // idempotent) and the reconcilers cover the rest.
        await Promise.allSettled([...inFlight]);
        for (const connection of connections) connection.disconnect();
        return;
      }
      await Promise.all(workers.map((worker) => worker.close()));
      for (const connection of connections) connection.disconnect();
    },
  };
}
