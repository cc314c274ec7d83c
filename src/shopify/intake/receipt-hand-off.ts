import type { Logger } from '../../logger.ts';
import { addWithin } from '../../queues/queues.ts';

/** Adds the jobs of receipts that were just stored, in one Redis round trip (BullMQ `addBulk`). */
export type EnqueueReceipts = (webhookIds: string[]) => Promise<void>;

export interface ReceiptHandOffOptions {
  /** Receipts per `addBulk`; a larger backlog goes in several. */
  maxBatch?: number;
  /** How long the first receipt of a batch waits for others. */
  lingerMs?: number;
  /** A batch Redis has not taken by then is logged and left to the reconciler. */
  timeoutMs?: number;
  /**
   * Receipts waiting for Redis past this are not held in memory (Redis is down or far behind): they
   * are logged and left to the reconciler, which finds them in PostgreSQL.
   */
  maxWaiting?: number;
}

/**
 * The intake's hand-off of stored receipts to the `shopify-webhooks` queue, off the answer's path.
 *
 * The webhook's answer needs the receipt committed, not queued: Shopify counts a delivery as made
 * once we answer 200 and the receipt is in PostgreSQL, where the reconciler finds any receipt
 * whose job never came (`reenqueueUnprocessedWebhooks`, receipts still `received` after a minute).
 * So the route answers right after the INSERT and hands the id here. The ids of a few milliseconds
 * go to Redis together, in one `addBulk` (a pipeline: one write and one reply for the batch),
 * instead of one script call and its round trip per webhook: under a burst many INSERTs complete
 * in the same turn, and the per-webhook Redis write was 14% of the intake's thread
 * (docs/scaling.md "Webhook intake"). A batch gathers for `lingerMs` (20 ms); one batch is in
 * flight at a time and ids that arrive meanwhile form the next one, so batches grow with the load
 * and Redis never sees more than one pipeline from here.
 *
 * A crash between the INSERT and the batch's `addBulk` loses only the job, never the webhook: the
 * reconciler re-enqueues the receipt (test/shopify/intake-crash.test.ts kills a real process there).
 */
export class ReceiptHandOff {
  private waiting: string[] = [];
  private flushing: Promise<void> | null = null;
  private scheduled = false;
  private readonly maxBatch: number;
  private readonly lingerMs: number;
  private readonly timeoutMs: number;
  private readonly maxWaiting: number;

  constructor(
    private readonly enqueue: EnqueueReceipts,
    private readonly logger: Logger,
    options: ReceiptHandOffOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 500;
    this.lingerMs = options.lingerMs ?? 20;
    this.timeoutMs = options.timeoutMs ?? 1_000;
    this.maxWaiting = options.maxWaiting ?? 20_000;
  }

  /** Queues a stored receipt's job soon; never throws and never waits. */
  add(webhookId: string): void {
    if (this.waiting.length >= this.maxWaiting) {
      this.logger.warn(
        { webhookId, waiting: this.waiting.length },
        'too many webhooks wait for Redis; the reconciler will pick this one up from PostgreSQL',
      );
      return;
    }
    this.waiting.push(webhookId);
    this.schedule();
  }

  /** Resolves once every receipt added so far has been handed to Redis (or given up on and logged). */
  async drain(): Promise<void> {
    while (this.flushing || this.waiting.length > 0) {
      if (!this.flushing) this.flushing = this.flushAll();
      await this.flushing;
    }
  }

  private schedule(): void {
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    // A few milliseconds of delay before processing can start cost nothing (processing lags by
    // seconds under load anyway); they let a batch gather more than the one or two INSERTs that
    // complete in one event-loop turn. Each write to a socket is a system call, which profiling
    // showed to be most of the thread's time per webhook (docs/scaling.md "Webhook intake").
    setTimeout(() => {
      this.scheduled = false;
      if (!this.flushing) this.flushing = this.flushAll();
    }, this.lingerMs).unref();
  }

  private async flushAll(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, this.maxBatch);
        await addWithin(
          () => this.enqueue(batch),
          this.timeoutMs,
          (error) =>
            this.logger.warn(
              { err: error, webhooks: batch.length, first: batch[0] },
              'could not enqueue webhooks; the reconciler will pick them up from PostgreSQL',
            ),
        );
      }
    } finally {
      this.flushing = null;
    }
  }
}
