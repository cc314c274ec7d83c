import type Router from '@koa/router';
import { sandboxUrl } from '../admin/shop-links.ts';
import type { ShopifyConfig } from '../config.ts';
import { routeShopifyRequestsTo } from '../library.ts';
import { appBridgeStandinRoutes } from './app-bridge-standin.ts';
import { ShopifySandbox } from './sandbox/index.ts';

/**
 * Shopify for local development, on the built-in development credentials only: the sandbox that
 * stands in for Shopify's pages and Admin API, and App Bridge's stand-in for the embedded admin.
 * src/app.ts loads this module with a dynamic import only then, so production never loads it.
 */
export interface ShopifyDevelopment {
  sandbox: ShopifySandbox;
  /** Served by the app itself: App Bridge's stand-in script. */
  routes: Router;
}

/** Starts the development Shopify and routes the library's Shopify calls to it (at `sandboxBaseUrl`). */
export function startShopifyDevelopment(config: ShopifyConfig, sandboxBaseUrl: string): ShopifyDevelopment {
  const sandbox = new ShopifySandbox({ apiKey: config.apiKey, apiSecret: config.apiSecret }, sandboxUrl(config), {
    url: config.appUrl,
    scopes: config.scopes,
  });
  routeShopifyRequestsTo(`${sandboxBaseUrl}/shopify`);
  return { sandbox, routes: appBridgeStandinRoutes(config.apiSecret) };
}
