import { Queue, type DefaultJobOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { CARRIER_CODES, type CarrierCode } from '../carriers/carrier-code.ts';
import type { Logger } from '../logger.ts';
import { RedisStateLog } from './redis-state-log.ts';

/**
 * Every BullMQ queue of the system, in one place: names, job options and ids, and the producer
 * `Queue` objects. The processors that work them are in `jobs/` (one file each), started by
 * `jobs/start-workers.ts`. Redis holds only queue state; PostgreSQL holds the truth, and each
 * domain's `reconcile()` hands over again whatever a lost job would have done.
 */
export const QUEUE_NAMES = {
  videoProcessing: 'video-processing',
  shopifyWebhooks: 'shopify-webhooks',
  /**
   * Sends due messages: a job right after a change made one due (`dispatchSendsNow`), and a job
   * scheduler every second as the safety net. Its own queue and worker, so webhook processing never
   * holds a message back.
   */
  sends: 'sends',
  /** The order outbox relay; a job scheduler runs it every second. */
  orderEvents: 'order-events',
  /** Claims due packages per carrier; a job scheduler per carrier. */
  trackingClaim: 'tracking-claim',
  /** One job per Shopify usage charge (a sent video of a Shopify shop). */
  billing: 'billing',
} as const;

/** One queue per carrier for the polling calls, so one carrier's backlog never delays another's. */
export const trackingQueueName = (carrier: CarrierCode) => `tracking-${carrier}`;

/** How often the scheduled ticks run. */
export const EVERY_MS = {
  /** Due messages are looked for every second: "within seconds" of delivery, at one indexed query a second. */
  dispatchSends: 1_000,
  /** The outbox relay: events the changing process could not hand over go within about a second. */
  deliverOrderEvents: 1_000,
  /** Due packages are claimed every minute for real carriers, every few seconds in the sandbox. */
  claimTracking: { carrier: 60_000, sandbox: 2_000 },
};

/** Bounded retention so Redis memory stays flat however long the system runs. */
export const DEFAULT_JOB_OPTIONS: DefaultJobOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 2_000 },
  removeOnComplete: { count: 1_000, age: 3_600 },
  removeOnFail: { count: 5_000, age: 7 * 24 * 3_600 },
};

/**
 * A usage charge waits on Shopify (a token the next embedded load re-obtains, throttling, outages):
 * retried for about 17 minutes (1 s doubling), then the reconciler hands it over again every minute.
 */
const BILLING_JOB_OPTIONS: DefaultJobOptions = {
  ...DEFAULT_JOB_OPTIONS,
  attempts: 11,
  backoff: { type: 'exponential', delay: 1_000 },
};

/** Scheduled ticks are not retried: the next tick is the retry. */
const TICK_JOB_OPTIONS: DefaultJobOptions = { ...DEFAULT_JOB_OPTIONS, attempts: 1 };

/** Job ids make adds idempotent: a second add of the same work while it waits or runs is a no-op. */
export const jobIds = {
  video: (videoId: string) => `video-${videoId}`,
  /** One poll job per claim: the claim's token is its id, so a claim can never be queued twice. */
  poll: (claimToken: string) => `poll-${claimToken}`,
  /** BullMQ forbids ':' in custom job ids. */
  webhook: (webhookId: string, suffix?: string) => `wh-${webhookId.replace(/:/g, '_')}${suffix ? `-${suffix}` : ''}`,
  /** One job per order's usage charge. */
  usageCharge: (orderId: string) => `charge-${orderId}`,
};

/** The producer side of every queue, on one connection. */
export class Queues {
  readonly videoProcessing: Queue;
  readonly shopifyWebhooks: Queue;
  readonly sends: Queue;
  readonly orderEvents: Queue;
  readonly trackingClaim: Queue;
  readonly billing: Queue;
  readonly tracking: Record<CarrierCode, Queue>;
  private readonly log: RedisStateLog;
  private readonly dispatchAdd = { inFlight: false, again: false };

  constructor(connection: Redis, options: { prefix: string; logger: Logger }) {
    this.log = new RedisStateLog(options.logger, 'queue producers');
    this.log.watch(connection);
    const queue = (name: string, defaultJobOptions = DEFAULT_JOB_OPTIONS) => {
      const created = new Queue(name, { connection, prefix: options.prefix, defaultJobOptions });
      // Without a listener an 'error' event would crash the process; the state log says one line
      // when Redis goes away and one when it is back, not a stack trace per reconnect attempt.
      created.on('error', (error) => this.log.failed(error));
      return created;
    };
    this.videoProcessing = queue(QUEUE_NAMES.videoProcessing);
    this.shopifyWebhooks = queue(QUEUE_NAMES.shopifyWebhooks);
    this.sends = queue(QUEUE_NAMES.sends, TICK_JOB_OPTIONS);
    this.orderEvents = queue(QUEUE_NAMES.orderEvents, TICK_JOB_OPTIONS);
    this.trackingClaim = queue(QUEUE_NAMES.trackingClaim, TICK_JOB_OPTIONS);
    this.billing = queue(QUEUE_NAMES.billing, BILLING_JOB_OPTIONS);
    this.tracking = Object.fromEntries(
      CARRIER_CODES.map((carrier) => [carrier, queue(trackingQueueName(carrier))]),
    ) as Record<CarrierCode, Queue>;
  }

  /**
   * Asks the send dispatcher to run now: called right after a change that made a message due has
   * committed, so a delivered gift goes out in milliseconds rather than at the next tick (which stays
   * as the safety net, and covers a failed add). Fire and forget; calls that arrive while an add is
   * on its way are folded into one more add after it, never into that one — its job may already have
   * looked before their commit.
   */
  dispatchSendsNow(): void {
    if (this.dispatchAdd.inFlight) {
      this.dispatchAdd.again = true;
      return;
    }
    this.dispatchAdd.inFlight = true;
    this.dispatchAdd.again = false;
    this.sends
      .add('dispatch-now', {}, { removeOnComplete: true, removeOnFail: { count: 100 } })
      .catch((error: Error) => this.log.failed(error))
      .finally(() => {
        this.dispatchAdd.inFlight = false;
        if (this.dispatchAdd.again) this.dispatchSendsNow();
      });
  }

  all(): Queue[] {
    return [
      this.videoProcessing,
      this.shopifyWebhooks,
      this.sends,
      this.orderEvents,
      this.trackingClaim,
      this.billing,
      ...Object.values(this.tracking),
    ];
  }

  async close(): Promise<void> {
    await Promise.all(this.all().map((queue) => queue.close()));
  }
}

/**
 * Adds a job with a deterministic id, so a second add while it waits, runs or waits out a retry
 * backoff is a no-op (the backoff is kept: a reconciler's "try again" must not undo it). A job with
 * that id that gave up stays in the failed set (bounded retention) and would make the add a no-op
 * too: when the reconciler hands the work over again it must really run, so that one goes. With
 * `rerunCompleted`, so does a finished one: work that can become due again after its job finished
 * (a usage charge re-opened when a plan is approved) runs again.
 */
export async function addRerunnableJob(
  queue: Queue,
  name: string,
  data: unknown,
  jobId: string,
  options: { delayMs?: number; rerunCompleted?: boolean } = {},
): Promise<void> {
  const previous = await queue.getJob(jobId);
  if (previous) {
    const state = await previous.getState();
    const finished = state === 'failed' || (options.rerunCompleted === true && state === 'completed');
    if (!finished && state !== 'unknown') return;
    await previous.remove();
  }
  await queue.add(name, data, { jobId, ...(options.delayMs ? { delay: options.delayMs } : {}) });
}

/**
 * Hands a usage charge to the `billing` queue. A charge can be pending again after its job finished
 * (the plan was approved after it went unbilled), so a finished job with its id is replaced.
 */
export async function enqueueUsageCharge(
  queue: Queue,
  orderId: string,
  options: { delayMs?: number } = {},
): Promise<void> {
  await addRerunnableJob(queue, 'record', { orderId }, jobIds.usageCharge(orderId), {
    ...options,
    rerunCompleted: true,
  });
}

/**
 * Runs `add` but waits at most `timeoutMs` for Redis: the work is already in PostgreSQL, so a slow
 * or failed add is handed to `onFailure` (a log line) and left to the reconciler.
 */
export async function addWithin(
  add: () => Promise<unknown>,
  timeoutMs: number,
  onFailure: (error: unknown) => void,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      add(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`enqueue took longer than ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } catch (error) {
    onFailure(error);
  } finally {
    clearTimeout(timer);
  }
}
