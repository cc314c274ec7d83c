import type { Db } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import type { OrderRow } from '../orders/serializer.ts';
import type { OrderService } from '../orders/service.ts';
import type { ShopifyConfig } from './config.ts';
import { createShopifyLibrary, type ShopifyLibrary } from './library.ts';
import { ShopifyOrderSync } from './order-sync.ts';
import type { EnqueueWebhook } from './queue.ts';
import { ShopTokens } from './tokens.ts';
import { ShopifyWebhookProcessing } from './webhooks.ts';

export interface ShopifyDeps {
  config: ShopifyConfig;
  db: Db;
  orders: OrderService;
  logger: Logger;
  now?: () => Date;
  /** Hands a stored receipt to the workers; absent (no Redis yet) → the reconciler picks it up. */
  enqueue?: EnqueueWebhook;
  onVideoOrderCreated?: (order: OrderRow) => Promise<void>;
  eraseOrderArtifacts?: (orderId: string) => Promise<void>;
}

export interface ShopifyServices {
  config: ShopifyConfig;
  library: ShopifyLibrary;
  tokens: ShopTokens;
  sync: ShopifyOrderSync;
  processing: ShopifyWebhookProcessing;
  deps: ShopifyDeps;
}

/** Builds the Shopify module once, in the composition root. */
export function createShopifyServices(deps: ShopifyDeps): ShopifyServices {
  const now = deps.now ?? (() => new Date());
  const logger = deps.logger.child({ component: 'shopify' });
  const library = createShopifyLibrary(deps.config, logger);
  const tokens = new ShopTokens({ db: deps.db, shopify: library, logger, now });
  const sync = new ShopifyOrderSync({ db: deps.db, orders: deps.orders, logger, now, ...(deps.onVideoOrderCreated ? { onVideoOrderCreated: deps.onVideoOrderCreated } : {}) });
  const processing = new ShopifyWebhookProcessing({
    db: deps.db,
    orders: deps.orders,
    logger,
    now,
    sync,
    ...(deps.eraseOrderArtifacts ? { eraseOrderArtifacts: deps.eraseOrderArtifacts } : {}),
  });
  return { config: deps.config, library, tokens, sync, processing, deps: { ...deps, now } };
}

export { shopifyRoutes, shopifyAccountRoutes } from './routes.ts';
export { SHOPIFY_WEBHOOK_QUEUE, queueEnqueuer, reenqueueUnprocessedWebhooks, webhookJobId } from './queue.ts';
export { unprocessedWebhooks } from './webhooks.ts';
export { loadShopifyConfig, describeShopifyConfig } from './config.ts';
