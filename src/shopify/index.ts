/** The Shopify module's public face for the composition root and the CLI. */
export { createShopifyServices, type ShopifyDeps, type ShopifyServices } from './services.ts';
export { shopifyRoutes } from './auth/routes.ts';
export { shopifyWebhookIntake } from './intake/webhook-route.ts';
export { shopifyAccountRoutes } from './compliance/data-export-routes.ts';
export { appHomeRoutes } from './auth/app-home.ts';
export { adminApiRoutes } from './admin/routes.ts';
export { shopifyExtensionRoutes } from './orders/extension-routes.ts';
export { queueBatchEnqueuer, queueEnqueuer, reenqueueUnprocessedWebhooks } from './intake/queue.ts';
export { unprocessedWebhooks } from './intake/webhooks.ts';
export { loadShopifyConfig, describeShopifyConfig } from './config.ts';
