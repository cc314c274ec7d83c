import { createHmac, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../../support/chromium.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeShopifyId, orderPayload } from '../../../src/shopify/dev-payloads.ts';
import { API_KEY, SECRET, startShopifyTestApp, type ShopifyTestApp } from '../../shopify/harness.ts';

/**
 * The extension as Shopify CLI bundles it (the entry the CLI writes for API 2025-10+, esbuild with
 * `process.env.APP_URL` defined), run in headless Chromium on a page of another origin than the
 * app — so the requests are real cross-origin requests with a CORS preflight — against the real
 * app. The page plays Shopify's part: the `shopify` global with the target's API. Without Chromium
 * this fails and says what to install.
 */
const extensionDir = fileURLToPath(new URL('../../../extensions/record-video-link/', import.meta.url));
const CUSTOMER_ID = 7_000_000_456;

let app: ShopifyTestApp;
let browser: Browser;
let storefront: http.Server;
let storefrontUrl: string;
const pages = new Map<string, string>();

beforeAll(async () => {
  app = await startShopifyTestApp();
  // Plays the origin Shopify runs the extension on: serves each test's page and the bundle.
  storefront = http.createServer((request, response) => {
    const body = pages.get(request.url ?? '');
    response.writeHead(body === undefined ? 404 : 200, {
      'Content-Type': request.url?.endsWith('.js') ? 'text/javascript' : 'text/html; charset=utf-8',
    });
    response.end(body ?? '');
  });
  await new Promise<void>((resolve) => storefront.listen(0, '127.0.0.1', resolve));
  storefrontUrl = `http://127.0.0.1:${(storefront.address() as AddressInfo).port}`;
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  storefront?.closeAllConnections();
  await new Promise<void>((resolve) => (storefront ? storefront.close(() => resolve()) : resolve()));
  await app?.close();
});

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
async function extensionPage(options: { target: string; module: string; api: string; token: string }) {
  const name = randomUUID();
  const locale = fs.readFileSync(`${extensionDir}locales/en.default.json`, 'utf8');
  pages.set(`/${name}.js`, await bundleLikeShopifyCli(options.target, options.module));
  pages.set(
    `/${name}`,
    `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body><script>
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
  expect((await app.webhook(shop, 'orders/create', orderPayload({ id, lines, customerId: CUSTOMER_ID }))).status).toBe(
    200,
  );
  const order = await app.services.database.db
    .selectFrom('shopify_order_links')
    .innerJoin('orders', 'orders.id', 'shopify_order_links.order_id')
    .select(['orders.id', 'orders.uuid'])
    .where('shopify_order_links.shop', '=', shop)
    .where('shopify_order_links.shopify_order_id', '=', String(id))
    .executeTakeFirstOrThrow();
  return { shop, shopifyOrderId: String(id), order };
}

describe('the record-link extension in a browser', () => {
  it('on the thank-you page: a button to the record page, then "recorded" once the video is in', async () => {
    const { shop, shopifyOrderId, order } = await placeOrder();
    const thankYou = {
      target: 'purchase.thank-you.block.render',
      module: './src/ThankYou.tsx',
      api: `orderConfirmation: { value: { order: { id: 'gid://shopify/OrderIdentity/${shopifyOrderId}' }, isFirstOrder: true } }`,
      token: sessionToken(shop),
    };
    const first = await extensionPage(thankYou);
    try {
      const banner = first.page.locator('s-banner[heading="Record your video message for Bob"]');
      await banner.waitFor({ timeout: 10_000 });
      expect(await banner.locator('s-button').getAttribute('href')).toBe(`https://doorstep.test/record/${order.uuid}`);
      expect(await banner.locator('s-button').textContent()).toBe('Record the video');
      expect(await first.page.evaluate(() => (globalThis as { extendedTarget?: string }).extendedTarget)).toBe(
        'purchase.thank-you.block.render',
      );
      // A cross-origin request with an Authorization header (so preflighted), whose answer the
      // browser let the extension read: the CORS headers hold up in a real browser.
      const origins = await first.appCallOrigins();
      expect(origins.length).toBeGreaterThan(0);
      expect(new Set(origins)).toEqual(new Set([storefrontUrl]));
      expect(first.problems).toEqual([]);
    } finally {
      await first.page.close();
    }

    await app.services.orders.markRecorded(order.id, { durationTenths: 42 });
    const again = await extensionPage(thankYou);
    try {
      await again.page
        .locator('s-banner[heading="Your video message for Bob is recorded"]')
        .waitFor({ timeout: 10_000 });
      expect(await again.page.locator('s-button').count()).toBe(0);
      expect(again.problems).toEqual([]);
    } finally {
      await again.page.close();
    }
  });

  it('on the order-status page, from the Order gid', async () => {
    const { shop, shopifyOrderId, order } = await placeOrder();
    const { page, problems } = await extensionPage({
      target: 'customer-account.order-status.block.render',
      module: './src/OrderStatus.tsx',
      api: `order: { value: { id: 'gid://shopify/Order/${shopifyOrderId}', name: '#1001' } }`,
      token: sessionToken(shop),
    });
    try {
      await page.locator(`s-button[href="https://doorstep.test/record/${order.uuid}"]`).waitFor({ timeout: 10_000 });
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
