import { z } from 'zod';
import type { ShopifyBilling } from '../src/billing/shopify-billing.ts';
import type { Logger } from '../src/logger.ts';
import { jobProcessor } from './run-job.ts';

export const usageChargePayload = z.object({ orderId: z.string().min(1).max(100) });

/**
 * Records one sent video's usage charge with Shopify (queue 'billing'). Shopify outages, throttling
 * and a shop without a working token are retried with backoff; the charge stays `pending` in
 * PostgreSQL meanwhile, and the reconciler re-enqueues it if the job is lost or gives up.
 */
export function recordUsageChargeProcessor(billing: ShopifyBilling, logger: Logger) {
  return jobProcessor('record-usage-charge', usageChargePayload, logger, async ({ orderId }) =>
    billing.recordCharge(orderId),
  );
}
