import type { Queue } from 'bullmq';
import { z } from 'zod';
import { CARRIER_CODES, type CarrierCode } from '../src/carriers/carrier-code.ts';
import type { Logger } from '../src/logger.ts';
import type { TrackingPoller } from '../src/tracking/poller.ts';
import { jobProcessor } from './run-job.ts';

export const claimTrackingPayload = z.object({ carrier: z.enum(CARRIER_CODES) });

/** How many batches one claim may hand out: enough for a busy minute, bounded so a backlog drains in steps. */
const MAX_BATCHES_PER_CLAIM = 200;

/**
 * Runs on a schedule per carrier: claims due packages in carrier-sized batches and queues one poll
 * job per batch on the carrier's own (rate-limited) queue. The job id is the claim's token, so a
 * claim can never be queued twice.
 */
export function claimTrackingProcessor(poller: TrackingPoller, batchQueues: Record<CarrierCode, Queue>, logger: Logger) {
  return jobProcessor('claim-tracking', claimTrackingPayload, logger, async ({ carrier }) => {
    const claims = await poller.claim(carrier, MAX_BATCHES_PER_CLAIM);
    if (claims.length === 0) return { batches: 0 };
    await batchQueues[carrier].addBulk(claims.map((claim) => ({ name: 'poll', data: { carrier, token: claim.token }, opts: { jobId: `poll-${claim.token}` } })));
    logger.debug({ carrier, batches: claims.length, packages: claims.reduce((n, c) => n + c.count, 0) }, 'claimed due packages');
    return { batches: claims.length };
  });
}
