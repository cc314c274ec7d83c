import type { Queue } from 'bullmq';
import type { Db } from '../../db/database.ts';
import { addRerunnableJob, jobIds } from '../../queues/queues.ts';
import type { EnqueueReceipts } from './receipt-hand-off.ts';
import { unprocessedWebhooks } from './webhooks.ts';

export type EnqueueWebhook = (webhookId: string, options?: { replay?: boolean }) => Promise<void>;

/** How the reconciler and the replay command hand a receipt to the workers. */
export function queueEnqueuer(queue: Queue): EnqueueWebhook {
  return async (webhookId, options = {}) => {
    await addRerunnableJob(
      queue,
      'process',
      { webhookId, ...(options.replay ? { replay: true } : {}) },
      jobIds.webhook(webhookId, options.replay ? `replay-${Date.now()}` : undefined),
    );
  };
}

/**
 * How the intake hands the receipts it has just inserted to the workers (receipt-hand-off.ts): they
 * have never had a job, so a plain `add` each — no look for a failed job to replace first — and all
 * of them in one `addBulk` pipeline. (A webhook id seen again after its receipt was deleted, e.g. by
 * shop/redact, while its old failed job is still kept, adds nothing here: the reconciler's
 * rerunnable add picks that receipt up.)
 */
export function queueBatchEnqueuer(queue: Queue): EnqueueReceipts {
  return async (webhookIds) => {
    await queue.addBulk(
      webhookIds.map((webhookId) => ({
        name: 'process',
        data: { webhookId },
        opts: { jobId: jobIds.webhook(webhookId) },
      })),
    );
  };
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
