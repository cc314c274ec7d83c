import type { Queue } from 'bullmq';
import type { Db } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import { addRerunnableJob, addWithin, jobIds } from '../queues/queues.ts';
import { unprocessedWebhooks } from './webhooks.ts';

export type EnqueueWebhook = (webhookId: string, options?: { replay?: boolean; fresh?: boolean }) => Promise<void>;

/** How the web process hands a receipt to the workers. */
export function queueEnqueuer(queue: Queue): EnqueueWebhook {
  return async (webhookId, options = {}) => {
    // A receipt the intake has just inserted has never had a job: one `add` (one Redis script)
    // instead of looking for a failed job to replace first — the intake's answer waits on it. (A
    // webhook id seen again after its receipt was deleted, e.g. by shop/redact, while its old failed
    // job is still kept, adds nothing here: the reconciler's rerunnable add picks that receipt up.)
    if (options.fresh) {
      await queue.add('process', { webhookId }, { jobId: jobIds.webhook(webhookId) });
      return;
    }
    await addRerunnableJob(
      queue,
      'process',
      { webhookId, ...(options.replay ? { replay: true } : {}) },
      jobIds.webhook(webhookId, options.replay ? `replay-${Date.now()}` : undefined),
    );
  };
}

/**
 * The intake's hand-off of a receipt it has just stored. The answer to Shopify must not wait on
 * Redis (5-second limit): the receipt is already in
 * PostgreSQL, so a slow or failed enqueue is logged and left to the reconciler.
 */
export async function enqueueWithin(
  enqueue: EnqueueWebhook,
  webhookId: string,
  timeoutMs: number,
  logger: Logger,
): Promise<void> {
  await addWithin(
    () => enqueue(webhookId, { fresh: true }),
    timeoutMs,
    (error) =>
      logger.warn(
        { err: error, webhookId },
        'could not enqueue the webhook; the reconciler will pick it up from PostgreSQL',
      ),
  );
}

/** Reconciler step: re-enqueues receipts whose job was lost (Redis down at receipt, Redis data lost). */
export async function reenqueueUnprocessedWebhooks(
  db: Db,
  enqueue: EnqueueWebhook,
  options: { olderThanMs?: number } = {},
): Promise<number> {
  const ids = await unprocessedWebhooks(db, options);
  for (const id of ids) await enqueue(id);
  return ids.length;
}
