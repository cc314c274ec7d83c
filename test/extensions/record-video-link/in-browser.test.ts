import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExtensionHost, type ExtensionHost } from './extension-host.ts';

/**
 * The extension as Shopify CLI bundles it (the entry the CLI writes for API 2025-10+, esbuild with
 * `process.env.APP_URL` defined), run in headless Chromium on a page of another origin than the
 * app — so the requests are real cross-origin requests with a CORS preflight — against the real
 * app. The page plays Shopify's part: the `shopify` global with the target's API. Without Chromium
 * this fails and says what to install.
 */
let host: ExtensionHost;

beforeAll(async () => {
  host = await startExtensionHost();
});
afterAll(async () => {
  await host?.close();
});

describe('the record-link extension in a browser', () => {
  it('on the thank-you page: a button to the record page, then "recorded" once the video is in', async () => {
    const { shop, shopifyOrderId, order } = await host.placeOrder();
    const thankYou = host.thankYouPage({ shop, shopifyOrderId });
    const first = await host.extensionPage(thankYou);
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
      expect(new Set(origins)).toEqual(new Set([host.storefrontUrl]));
      expect(first.problems).toEqual([]);
    } finally {
      await first.page.close();
    }

    await host.app.services.orders.markRecorded(order.id, { durationTenths: 42 });
    const again = await host.extensionPage(thankYou);
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
    const { shop, shopifyOrderId, order } = await host.placeOrder();
    const { page, problems } = await host.extensionPage({
      target: 'customer-account.order-status.block.render',
      module: './src/OrderStatus.tsx',
      api: `order: { value: { id: 'gid://shopify/Order/${shopifyOrderId}', name: '#1001' } }`,
      token: host.sessionToken(shop),
    });
    try {
      await page.locator(`s-button[href="https://doorstep.test/record/${order.uuid}"]`).waitFor({ timeout: 10_000 });
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
