import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { walkFirstHour } from '../shopify/first-hour.ts';
import { launchChromium } from '../support/chromium.ts';
import { projectRoot } from '../support/processes.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { startTestWorkers } from '../support/workers.ts';

/** A merchant's first hour, pictured for docs/shopify.md (`npm run screenshots`): the same walk as test/shopify/first-hour.test.ts. */
let app: TestApp;
let workers: Awaited<ReturnType<typeof startTestWorkers>>;
let browser: Browser;
beforeAll(async () => {
  app = await startTestApp();
  workers = await startTestWorkers(app.services);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await workers?.close();
  await app?.close();
});

it('install, setup guide, test gift, watch page', async () => {
  const { problems } = await walkFirstHour(browser, app, 'doorstep-demo.myshopify.com', async (name, page) => {
    await page.setViewportSize({ width: 1100, height: 760 });
    await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
    await page.screenshot({ path: path.join(projectRoot, 'docs', 'screenshots', `${name}.png`), fullPage: false });
  });
  expect(problems).toEqual([]);
}, 180_000);
