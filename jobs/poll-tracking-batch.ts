import { z } from 'zod';
import { CARRIER_CODES } from '../src/carriers/carrier-code.ts';
import type { Logger } from '../src/logger.ts';
import type { TrackingPoller } from '../src/tracking/poller.ts';
import { jobProcessor } from './run-job.ts';

export const pollTrackingBatchPayload = z.object({ carrier: z.enum(CARRIER_CODES), token: z.uuid() });

/**
 * One carrier API call for one claimed batch. On a 429, or when our budget for the carrier is spent,
 * the poller has already rescheduled the packages in PostgreSQL (nothing is lost), and the carrier
 * client holds every process off the carrier until then (src/carriers/quota.ts).
 */
export function pollTrackingBatchProcessor(poller: TrackingPoller, logger: Logger) {
  return jobProcessor('poll-tracking-batch', pollTrackingBatchPayload, logger, ({ carrier, token }) =>
    poller.pollBatch(carrier, token),
  );
}
