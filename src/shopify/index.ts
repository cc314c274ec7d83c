/** The Shopify module's public face for the composition root and the CLI. */
export { createShopifyServices, type ShopifyDeps, type ShopifyServices } from './services.ts';
export { shopifyRoutes, shopifyAccountRoutes, shopifyWebhookIntake } from './routes.ts';
export { appHomeRoutes } from './app-home.ts';
export { adminApiRoutes } from './admin/routes.ts';
export { shopifyExtensionRoutes } from './extension-routes.ts';
export { queueBatchEnqueuer, queueEnqueuer, reenqueueUnprocessedWebhooks } from './queue.ts';
export { unprocessedWebhooks } from './webhooks.ts';
export { loadShopifyConfig, describeShopifyConfig } from './config.ts';
