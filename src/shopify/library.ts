import '@shopify/shopify-api/adapters/node';
import { ApiVersion, LogSeverity, shopifyApi, type Shopify } from '@shopify/shopify-api';
import { setAbstractFetchFunc } from '@shopify/shopify-api/runtime';
import type { Logger } from '../logger.ts';
import type { ShopifyConfig } from './config.ts';

export type ShopifyLibrary = Shopify;

/**
 * The header `routeShopifyRequestsTo` names the shop in (the sandbox reads it). Defined here, not in
 * the sandbox, so production code never loads the sandbox to route requests.
 */
export const SHOP_HEADER = 'x-shopify-sandbox-shop';

/** What the library logs as errors about an OAuth callback a client got wrong (lib/auth/oauth/oauth.mjs). */
const CLIENT_MISTAKES = ['Could not find OAuth cookie', 'Invalid OAuth callback'];

/** `@shopify/shopify-api` configured for this app (Node adapter imported above, once, for its side effect). */
export function createShopifyLibrary(config: ShopifyConfig, logger: Logger): ShopifyLibrary {
  const url = new URL(config.appUrl);
  const log = logger.child({ component: 'shopify-api' });
  return shopifyApi({
    apiKey: config.apiKey,
    apiSecretKey: config.apiSecret,
    scopes: config.scopes,
    hostName: url.host,
    hostScheme: url.protocol === 'http:' ? 'http' : 'https',
    apiVersion: config.apiVersion as ApiVersion,
    isEmbeddedApp: true,
    logger: {
      level: LogSeverity.Warning,
      log: async (severity, message) => {
        // A callback without its state cookie or with a bad signature is the caller's mistake (an
        // old link, a blocked cookie, a probe): our route answers it 400 and logs it once, as info.
        if (CLIENT_MISTAKES.some((mistake) => message.includes(mistake))) log.debug(message);
        else if (severity === LogSeverity.Error) log.error(message);
        else log.warn(message);
      },
    },
  });
}

/**
 * Development and tests only: the library always calls `https://{shop}/admin/…`. This points those
 * calls at the Shopify sandbox (src/shopify/dev/sandbox/: mounted in the app on development credentials,
 * or on a port of its own in tests) by rewriting the origin, below `baseUrl`'s path, and naming the
 * shop in a header. It replaces the library's process-wide fetch, so production never calls it.
 */
export function routeShopifyRequestsTo(baseUrl: string): void {
  const base = baseUrl.replace(/\/+$/, '');
  setAbstractFetchFunc(async (input: string | URL | Request, init?: RequestInit) => {
    const original = new URL(typeof input === 'string' || input instanceof URL ? input.toString() : input.url);
    if (!original.hostname.endsWith('.myshopify.com')) return fetch(input, init);
    const headers = new Headers(init?.headers);
    headers.set(SHOP_HEADER, original.hostname);
    return fetch(`${base}${original.pathname}${original.search}`, { ...init, headers });
  });
}
