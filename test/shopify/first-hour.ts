import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { launchChromium, pageWatchingProblems } from '../support/chromium.ts';
import { startTestAppWithWorkers } from '../support/app-with-workers.ts';
import type { TestApp } from '../support/test-app.ts';
import { decodedMail } from '../support/mail-server.ts';
import { outboxMail } from '../support/outbox.ts';

/**
 * A new merchant's first hour on `npm start`'s embedded defaults (issue 28), in a real browser: the
 * front page's Install form, the install page, Home's setup guide, the theme editor deep link and
 * its Save, and "Send a test gift to yourself" down to the e-mail and the watch page it links to.
 * `shot` (the screenshots run) pictures each stage; the test runs it without.
 */
/** What the walk runs against: `npm start`'s embedded defaults (the app, its workers) and a Chromium. */
export async function startFirstHourWorld(): Promise<{ app: TestApp; browser: Browser; close(): Promise<void> }> {
  const { app, close } = await startTestAppWithWorkers();
  const browser = await launchChromium();
  return {
    app,
    browser,
    async close() {
      await browser.close();
      await close();
    },
  };
}

export async function walkFirstHour(
  browser: Browser,
  app: TestApp,
  shop: string,
  shot: (name: string, page: Page) => Promise<void> = async () => {},
): Promise<{ problems: string[] }> {
  const { page, problems } = await pageWatchingProblems(browser);
  try {
    await page.goto(`${app.baseUrl}/`);
    await shot('landing', page);
    await page.getByLabel('Shop').fill(shop);
    await page.getByRole('button', { name: 'Install' }).click();
    await page.getByRole('heading', { name: 'Install Doorstep' }).waitFor();
    await shot('first-hour-1-install', page);
    await page.getByRole('button', { name: 'Install' }).click();

    // Home, with the setup guide: nothing done yet.
    await page.getByRole('heading', { name: 'Set up Doorstep' }).waitFor({ timeout: 20_000 });
    await expect.poll(() => page.locator('#setup-progress').innerText()).toBe('0 of 4 steps done');
    await shot('first-hour-2-setup-guide', page);

    // Step 1: the deep link opens the theme editor with the block being added; Save, and back.
    const addBlock = page.locator('#setup-theme_block-action');
    expect(await addBlock.getAttribute('href')).toContain('addAppBlockId=');
    await addBlock.click();
    await page.getByRole('heading', { name: 'Customize theme' }).waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Set up Doorstep' }).waitFor({ timeout: 20_000 });
    await expect.poll(() => page.locator('#setup-progress').innerText()).toBe('1 of 4 steps done');

    // Step 2: the Video message product, made in the shop at the merchant's price.
    await page.getByLabel('Price, in your store’s currency').fill('6.00');
    await page.getByRole('button', { name: 'Create it for me' }).click();
    await expect.poll(() => page.locator('#setup-progress').innerText(), { timeout: 20_000 }).toBe('2 of 4 steps done');
    expect(await page.locator('#setup-video_product').innerText()).toContain('Done');

    // Step 3: the plan, approved on Shopify's confirmation page (the sandbox's), at the top level, and back.
    await page.getByRole('button', { name: 'Approve the plan in Shopify' }).click();
    await page.waitForURL((url) => url.pathname.endsWith('/billing/approve'), { timeout: 20_000 });
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    await page.getByRole('heading', { name: 'Set up Doorstep' }).waitFor({ timeout: 20_000 });
    await expect.poll(() => page.locator('#setup-progress').innerText(), { timeout: 20_000 }).toBe('3 of 4 steps done');
    expect(await page.locator('#setup-plan').innerText()).toContain('Done');

    // Step 4: the test gift, to the store's own e-mail; the guide says the store is set up.
    await page.getByRole('button', { name: 'Send a test gift to yourself' }).click();
    await page.locator('#test-gift-sent').waitFor({ timeout: 20_000 });
    await page.getByText('Doorstep is set up').waitFor({ timeout: 20_000 });
    expect(await page.locator('#setup-progress').count()).toBe(0);
    await shot('first-hour-3-test-gift', page);

    const email = `owner@${shop.split('.')[0]}.example.com`;
    const message = await outboxMail(
      app.services.config.dataDir,
      (mail) => mail.includes(`To: ${email}`) && mail.includes('/watch/'),
      'the test gift’s e-mail in the outbox',
      90_000,
    );
    const watchUrl = /https?:\/\/[^\s"<>]+\/watch\/[0-9a-f-]{36}/.exec(decodedMail(message))![0];
    // PUBLIC_URL names the link's host; the test's server is on a port of its own.
    await page.goto(`${app.baseUrl}${new URL(watchUrl).pathname}`);
    await page.locator('video#message').waitFor();
    await shot('first-hour-4-watch-page', page);
    return { problems: [...problems] };
  } finally {
    await page.close();
  }
}
