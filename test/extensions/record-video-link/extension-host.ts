import { createHmac, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { fakeShopifyId, orderPayload } from '../../../src/shopify/dev/webhook-payloads.ts';
import { launchChromium } from '../../support/chromium.ts';
import { API_KEY, SECRET, startShopifyTestApp, type ShopifyTestApp } from '../../shopify/harness.ts';

/**
 * The checkout extension's host: the real app, and a page of another origin playing Shopify's part
 * (the `shopify` global of a target) with the extension bundled as Shopify CLI bundles it. Used by
 * the in-browser test and the screenshots (`test/screenshots/checkout-extension.screenshots.ts`).
 */
const extensionDir = fileURLToPath(new URL('../../../extensions/record-video-link/', import.meta.url));
export const CUSTOMER_ID = 7_000_000_456;

export interface ExtensionPageOptions {
  target: string;
  module: string;
  api: string;
  token: string;
  /** Extra markup for the page's head (the screenshots' stand-in look of Shopify's components). */
  head?: string;
}

export interface ExtensionHost {
  app: ShopifyTestApp;
  browser: Browser;
  storefrontUrl: string;
  extensionPage(options: ExtensionPageOptions): Promise<{
    page: Page;
    problems: string[];
    appCallOrigins: () => Promise<Array<string | undefined>>;
  }>;
  placeOrder(): Promise<{ shop: string; shopifyOrderId: string; order: { id: string; uuid: string } }>;
  sessionToken(shop: string): string;
  /** The thank-you page's target for a placed order, as Shopify hands it to the extension. */
  thankYouPage(order: { shop: string; shopifyOrderId: string }): ExtensionPageOptions;
  close(): Promise<void>;
}

export async function startExtensionHost(): Promise<ExtensionHost> {
  const app = await startShopifyTestApp();
  const pages = new Map<string, string>();
  // Plays the origin Shopify runs the extension on: serves each page and its bundle.
  const storefront = http.createServer((request, response) => {
    const body = pages.get(request.url ?? '');
    response.writeHead(body === undefined ? 404 : 200, {
      'Content-Type': request.url?.endsWith('.js') ? 'text/javascript' : 'text/html; charset=utf-8',
    });
    response.end(body ?? '');
  });
  await new Promise<void>((resolve) => storefront.listen(0, '127.0.0.1', resolve));
  const storefrontUrl = `http://127.0.0.1:${(storefront.address() as AddressInfo).port}`;
  const browser = await launchChromium();

  /** What Shopify CLI's bundle step does for a remote-DOM (2025-10+) ui_extension target. */
  async function bundleLikeShopifyCli(target: string, module: string): Promise<string> {
    const result = await build({
      stdin: {
        contents: `import Target_0 from '${module}';shopify.extend('${target}', (...args) => Target_0(...args));`,
        resolveDir: extensionDir,
        loader: 'tsx',
      },
      bundle: true,
      write: false,
      define: { 'process.env.APP_URL': JSON.stringify(app.baseUrl), 'process.env.NODE_ENV': '"production"' },
      jsx: 'automatic',
      loader: { '.esnext': 'ts', '.js': 'jsx' },
      legalComments: 'none',
      target: 'es6',
      logLevel: 'silent',
    });
    return result.outputFiles[0]!.text;
  }

  function sessionToken(shop: string): string {
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      dest: shop,
      aud: API_KEY,
      exp: now + 300,
      nbf: now,
      iat: now,
      jti: randomUUID(),
      sub: `gid://shopify/Customer/${CUSTOMER_ID}`,
    };
    const unsigned = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
    return `${unsigned}.${createHmac('sha256', SECRET).update(unsigned).digest('base64url')}`;
  }

  /** A page with Shopify's part (the `shopify` global of the target) and the bundled extension. */
  async function extensionPage(options: ExtensionPageOptions) {
    const name = randomUUID();
    const locale = fs.readFileSync(`${extensionDir}locales/en.default.json`, 'utf8');
    pages.set(`/${name}.js`, await bundleLikeShopifyCli(options.target, options.module));
    pages.set(
      `/${name}`,
      `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">${options.head ?? ''}</head><body><script>
        const locale = ${locale};
        globalThis.shopify = {
          ${options.api},
          sessionToken: { get: async () => ${JSON.stringify(options.token)} },
          i18n: { translate: (key, replacements = {}) => locale[key].replace(/{{(\\w+)}}/g, (_, n) => replacements[n]) },
          extend: (target, run) => { globalThis.extendedTarget = target; run(); },
        };
      </script><script src="/${name}.js"></script></body></html>`,
    );
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    // The Origin each call to the app was sent with (a cross-origin request carries the page's).
    const appCalls: Array<Promise<string | undefined>> = [];
    page.on('request', (request) => {
      if (request.url().startsWith(app.baseUrl)) appCalls.push(request.allHeaders().then((headers) => headers.origin));
    });
    const appCallOrigins = () => Promise.all(appCalls);
    await page.goto(`${storefrontUrl}/${name}`);
    return { page, problems, appCallOrigins };
  }

  async function placeOrder() {
    const shop = `browser-${Date.now()}.myshopify.com`;
    await app.addShop(shop);
    const id = fakeShopifyId();
    const lines = [{ id: fakeShopifyId(), recipientName: 'Bob', recipientEmail: 'bob@example.com' }];
    expect(
      (await app.webhook(shop, 'orders/create', orderPayload({ id, lines, customerId: CUSTOMER_ID }))).status,
    ).toBe(200);
    const order = await app.services.database.db
      .selectFrom('shopify_order_links')
      .innerJoin('orders', 'orders.id', 'shopify_order_links.order_id')
      .select(['orders.id', 'orders.uuid'])
      .where('shopify_order_links.shop', '=', shop)
      .where('shopify_order_links.shopify_order_id', '=', String(id))
      .executeTakeFirstOrThrow();
    return { shop, shopifyOrderId: String(id), order };
  }

  return {
    app,
    browser,
    storefrontUrl,
    extensionPage,
    placeOrder,
    sessionToken,
    thankYouPage: ({ shop, shopifyOrderId }) => ({
      target: 'purchase.thank-you.block.render',
      module: './src/ThankYou.tsx',
      api: `orderConfirmation: { value: { order: { id: 'gid://shopify/OrderIdentity/${shopifyOrderId}' }, isFirstOrder: true } }`,
      token: sessionToken(shop),
    }),
    async close() {
      await browser.close();
      storefront.closeAllConnections();
      await new Promise<void>((resolve) => storefront.close(() => resolve()));
      await app.close();
    },
  };
}
