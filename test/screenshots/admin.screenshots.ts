import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { projectRoot } from '../support/processes.ts';
import { launchChromium } from '../support/chromium.ts';
import { startMailServer } from '../support/mail-server.ts';
import { BOUNCING_RECIPIENT, openEmbeddedAdmin, seedStore, type SeededStore } from '../shopify/embedded-admin.ts';
import { startShopifyTestAppWithFakeShopify, type ShopifyTestApp } from '../shopify/harness.ts';

/** Screenshots of the embedded admin for the README and docs/shopify.md (`npm run screenshots`). */
let app: ShopifyTestApp;
let close: (() => Promise<void>) | undefined;
let browser: Browser;
let seeded: SeededStore;
let mail: Awaited<ReturnType<typeof startMailServer>>;
const shop = 'doorstep-demo.myshopify.com';
const out = (name: string) => path.join(projectRoot, 'docs', 'screenshots', `${name}.png`);

beforeAll(async () => {
  mail = await startMailServer();
  mail.rejectRecipient(BOUNCING_RECIPIENT, 550, 1);
  ({ app, close } = await startShopifyTestAppWithFakeShopify({ queue: true, env: { SMTP_URL: mail.url } }));
  const { auth } = await app.addShop(shop);
  seeded = await seedStore(app, shop, auth);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await close?.();
  await mail?.close();
});

async function shoot(name: string, pathname: string, ready: (page: Page) => Promise<unknown>): Promise<void> {
  const admin = await openEmbeddedAdmin(browser, app.baseUrl, shop, { path: pathname });
  try {
    await ready(admin.page);
    // Let Polaris finish measuring (tabs, layout) before the picture.
    await admin.page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
    await admin.page.screenshot({ path: out(name), fullPage: false });
    expect(admin.problems).toEqual([]);
  } finally {
    await admin.close();
  }
}

it('home, orders, order and settings', async () => {
  await shoot('home', '/', (page) =>
    expect.poll(() => page.locator('#count-video-orders').innerText(), { timeout: 20_000 }).toMatch(/6$/),
  );
  await shoot('orders', '/orders', (page) =>
    expect.poll(() => page.locator('#orders-panel tbody tr').count(), { timeout: 20_000 }).toBe(6),
  );
  await shoot('order', `/orders/${seeded.sent.orderId}`, (page) =>
    page.locator('#timeline').getByText('The video was sent to the recipient', { exact: false }).first().waitFor(),
  );
  await shoot('settings', '/settings', (page) => page.getByText('App id').waitFor({ timeout: 20_000 }));
});
