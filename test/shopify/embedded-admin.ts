import type { Browser, BrowserContext, Page } from 'playwright-core';
import { APP_BRIDGE_URL, appBridgeStandinScript, type PickerProduct } from '../../src/shopify/app-bridge-standin.ts';
import { API_KEY, SECRET } from './harness.ts';
import { sessionToken } from './session-token.ts';

/** What the stand-in's resource picker answers in the tests and screenshots. */
export const PICKED_PRODUCTS: PickerProduct[] = [
  {
    id: 'gid://shopify/Product/7001',
    title: 'Video gift card',
    variants: [{ id: 'gid://shopify/ProductVariant/7101', title: 'Default Title' }],
  },
  {
    id: 'gid://shopify/Product/7002',
    title: 'Gift box with video message',
    variants: [{ id: 'gid://shopify/ProductVariant/7201', title: 'Small' }],
  },
];

export interface EmbeddedAdmin {
  context: BrowserContext;
  page: Page;
  /** Script errors and console errors (CSP or integrity refusals among them) seen so far. */
  problems: string[];
  close(): Promise<void>;
}

/** The `host` Shopify passes: base64url of the shop's admin address. */
export const hostOf = (shop: string) =>
  Buffer.from(`admin.shopify.com/store/${shop.split('.')[0]}`).toString('base64url');

/** The URL Shopify loads in its iframe for an embedded app, with a fresh session token. */
export function embeddedUrl(baseUrl: string, shop: string, path = '/'): string {
  const query = new URLSearchParams({
    embedded: '1',
    host: hostOf(shop),
    id_token: sessionToken(shop, API_KEY, SECRET),
    shop,
  });
  return `${baseUrl}${path}?${query}`;
}

/**
 * Opens the app as the Shopify admin would, with Shopify's App Bridge CDN answered by our stand-in
 * (signing real session tokens with the test secret).
 */
export async function openEmbeddedAdmin(
  browser: Browser,
  baseUrl: string,
  shop: string,
  options: { path?: string; viewport?: { width: number; height: number } } = {},
): Promise<EmbeddedAdmin> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1280, height: 900 },
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  const standin = appBridgeStandinScript({ apiSecret: SECRET, products: PICKED_PRODUCTS });
  await context.route(APP_BRIDGE_URL, (route) =>
    route.fulfill({ status: 200, contentType: 'text/javascript; charset=utf-8', body: standin }),
  );
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    // The page names no icon, so Chromium's guess at /favicon.ico may 404: not the page's doing.
    if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico'))
      problems.push(`console: ${message.text()} (${message.location().url})`);
  });
  await page.goto(embeddedUrl(baseUrl, shop, options.path));
  return { context, page, problems, close: () => context.close() };
}
