import type { Browser } from 'playwright-core';
import { expect, it } from 'vitest';
import { findShop } from '../../src/shopify/shops.ts';
import { chromiumForFile, pageWatchingProblems } from '../support/chromium.ts';
import { testAppForFile, type TestApp } from '../support/test-app.ts';

/**
 * Issue 28: a merchant installs from the front page. On the development credentials (`npm start`)
 * the Install form leads to the local sandbox's install page, as it leads to Shopify's on a real
 * app; "Install" there opens the embedded admin, whose token exchange installs the shop.
 */
let app: TestApp;
let browser: Browser;
// The browser's hooks come second, so it closes before the app.
testAppForFile((started) => (app = started));
chromiumForFile((launched) => (browser = launched));

it('goes from the front page’s Install form to the install page, then into the installed app', async () => {
  expect(app.services.config.shopify.development).toBe(true);
  const shop = `front-${Date.now()}.myshopify.com`;
  const { page, problems } = await pageWatchingProblems(browser);
  try {
    await page.goto(`${app.baseUrl}/`);
    await page.getByLabel('Shop').fill(shop);
    await page.getByRole('button', { name: 'Install' }).click();
    await page.getByRole('heading', { name: 'Install Doorstep' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/sandbox/shopify/store/${shop.split('.')[0]}/oauth/install`);
    const body = await page.locator('body').innerText();
    for (const scope of app.services.config.shopify.scopes) expect(body).toContain(scope);

    await page.getByRole('button', { name: 'Install' }).click();
    await page.waitForURL((url) => url.pathname === '/' && url.searchParams.get('shop') === shop);
    expect(await page.title()).toContain('Doorstep');
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
  expect(await findShop(app.services.database.db, shop)).toMatchObject({ domain: shop, active: true });
});

it('answers an unknown app’s install link with a page saying so, not an error', async () => {
  const response = await fetch(`${app.baseUrl}/sandbox/shopify/store/someone/oauth/install?client_id=another-app`);
  expect(response.status).toBe(404);
  expect(await response.text()).toContain('No app with this client id');
});

it('reloads an embedded page whose token expired through the bounce page, with a fresh token', async () => {
  const shop = `bounce-${Date.now()}.myshopify.com`;
  const { page, problems } = await pageWatchingProblems(browser);
  try {
    await page.goto(`${app.baseUrl}/?embedded=1&shop=${shop}`);
    await page.waitForURL((url) => url.pathname === '/' && url.searchParams.has('id_token'));
    expect(new URL(page.url()).searchParams.get('shop')).toBe(shop);
    expect(await page.title()).toContain('Doorstep');
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
  expect(await findShop(app.services.database.db, shop)).toMatchObject({ domain: shop, active: true });
});
