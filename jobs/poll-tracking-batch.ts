import type { Worker } from 'bullmq';
import { z } from 'zod';
import { CARRIER_CODES } from '../src/carriers/carrier-code.ts';
import type { Logger } from '../src/logger.ts';
import type { TrackingPoller } from '../src/tracking/poller.ts';
import { jobProcessor } from './run-job.ts';

export const pollTrackingBatchPayload = z.object({ carrier: z.enum(CARRIER_CODES), token: z.uuid() });

/**
 * One carrier API call for one claimed batch. On a 429 the poller has already rescheduled the
 * packages in PostgreSQL (nothing is lost); here we pause the whole carrier queue for the
 * Retry-After so no other worker hammers the carrier meanwhile.
 */
export function pollTrackingBatchProcessor(poller: TrackingPoller, worker: () => Worker, logger: Logger) {
  return jobProcessor('poll-tracking-batch', pollTrackingBatchPayload, logger, async ({ carrier, token }) => {
    const outcome = await poller.pollBatch(carrier, token);
    if (outcome.rateLimitedMs !== null) await worker().rateLimit(outcome.rateLimitedMs);
    return outcome;
  });
}
