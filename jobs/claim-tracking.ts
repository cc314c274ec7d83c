import type { Queue } from 'bullmq';
import { z } from 'zod';
import type { CarrierBudget } from '../src/carriers/budget.ts';
import { CARRIER_CODES, type CarrierCode } from '../src/carriers/carrier-code.ts';
import type { Logger } from '../src/logger.ts';
import { batchesWithinLease, type TrackingPoller } from '../src/tracking/poller.ts';
import { jobIds } from '../src/queues/queues.ts';
import type { PushEvents } from '../src/tracking/push-events.ts';
import type { PushSubscriptions } from '../src/tracking/push-subscriptions.ts';
import { jobProcessor } from './run-job.ts';

export const claimTrackingPayload = z.object({ carrier: z.enum(CARRIER_CODES) });

/**
 * Runs on a schedule per carrier: claims due packages in carrier-sized batches and queues one poll
 * job per batch on the carrier's own queue (the carrier client holds the calls to its budget). The
 * job id is the claim's token, so a claim can never be queued twice.
 */
export function claimTrackingProcessor(
  poller: TrackingPoller,
  batchQueues: Record<CarrierCode, Queue>,
  limits: Record<CarrierCode, CarrierBudget>,
  logger: Logger,
  push?: { subscriptions: PushSubscriptions; events: PushEvents },
) {
  return jobProcessor('claim-tracking', claimTrackingPayload, logger, async ({ carrier }) => {
    // Push first: events the receiving process did not apply, then subscriptions due (new packages,
    // renewals). A package subscribed now is still polled once (its first poll fills the history).
    if (push?.subscriptions.isEnabled(carrier)) {
      await push.events.processPending(carrier);
      await push.subscriptions.subscribeDue(carrier);
    }
    // The carrier's queue is still working through earlier batches: claiming more now would only
    // let leases lapse. Due packages wait in PostgreSQL.
    if ((await batchQueues[carrier].getWaitingCount()) > 0) return { batches: 0, deferred: true };
    const claims = await poller.claim(carrier, batchesWithinLease(limits[carrier]));
    if (claims.length === 0) return { batches: 0 };
    await batchQueues[carrier].addBulk(
      claims.map((claim) => ({
        name: 'poll',
        data: { carrier, token: claim.token },
        opts: { jobId: jobIds.poll(claim.token) },
      })),
    );
    logger.debug(
      { carrier, batches: claims.length, packages: claims.reduce((n, c) => n + c.count, 0) },
      'claimed due packages',
    );
    return { batches: claims.length };
  });
}
