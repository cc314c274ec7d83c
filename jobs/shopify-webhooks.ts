import { z } from 'zod';
import type { Logger } from '../src/logger.ts';
import type { ShopifyWebhookProcessing } from '../src/shopify/intake/webhooks.ts';
import { jobProcessor } from './run-job.ts';

export const shopifyWebhookPayload = z.object({
  webhookId: z.string().min(1).max(255),
  replay: z.boolean().optional(),
});

/**
 * Processes one stored Shopify webhook (queue 'shopify-webhooks'). A payload we cannot process
 * (unknown shop, wrong shape) fails for good and stays in webhook_receipts as 'failed' with its
 * error, for `npm run cli -- webhooks replay <id>`; a database outage is retried with backoff.
 */
export function shopifyWebhookProcessor(processing: ShopifyWebhookProcessing, logger: Logger) {
  return jobProcessor('shopify-webhook', shopifyWebhookPayload, logger, async ({ webhookId, replay }) =>
    processing.process(webhookId, { replay: replay ?? false }),
  );
}
