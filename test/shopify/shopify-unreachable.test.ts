import { afterAll, beforeAll, expect, it } from 'vitest';
import { routeShopifyRequestsTo } from '../../src/shopify/library.ts';
import { freePort } from '../support/processes.ts';
import { API_KEY, SECRET, startShopifyTestApp, type ShopifyTestApp } from './harness.ts';
import { sessionToken } from './session-token.ts';

/**
 * Issue 13 item 10: opening the embedded admin for a shop we hold no token for, while Shopify cannot
 * be reached, is a 503 that says so — not a 500 "something went wrong".
 */
let app: ShopifyTestApp;
beforeAll(async () => {
  app = await startShopifyTestApp();
  // Every call to https://{shop}.myshopify.com goes to a port where nothing listens.
  routeShopifyRequestsTo(`http://127.0.0.1:${await freePort()}`);
});
afterAll(async () => {
  await app?.close();
});

it('the token exchange failing to reach Shopify is a 503 naming Shopify, with Retry-After', async () => {
  const shop = `unreachable-${Date.now()}.myshopify.com`;
  await app.addShop(shop);
  const response = await fetch(`${app.baseUrl}/?id_token=${sessionToken(shop, API_KEY, SECRET)}&shop=${shop}`);
  expect(response.status).toBe(503);
  const body = (await response.json()) as { error: { type: string; message: string } };
  expect(body.error.type).toBe('service_unavailable');
  expect(body.error.message).toMatch(/Shopify could not be reached/);
  expect(response.headers.get('retry-after')).toBeTruthy();
});
