import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ShopifySandbox } from '../../src/shopify/dev/sandbox/index.ts';

/**
 * The Shopify sandbox (src/shopify/dev/sandbox/) on a port of its own, for tests: OAuth grants (code,
 * token exchange, refresh), the Admin GraphQL calls, billing and the approval page. The library's
 * `https://{shop}` calls reach it through routeShopifyRequestsTo. Its hooks (grants,
 * accessTokenLifetime, holdRefreshes, refuseRefreshes, failGraphql, failTokenRequests, subscriptions, usageRecords,
 * primaryLocales)
 * are the sandbox's own.
 */
export type FakeShopify = ShopifySandbox & { baseUrl: string; close(): Promise<void> };

export async function startFakeShopify(apiKey: string, apiSecret: string): Promise<FakeShopify> {
  const sandbox = new ShopifySandbox({ apiKey, apiSecret }, '');
  const server = http.createServer((req, res) => sandbox.handle(req, res, req.url ?? '/'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  sandbox.publicUrl = baseUrl;
  return Object.assign(sandbox, {
    baseUrl,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
