import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { startTestWorkers } from '../support/workers.ts';
import { walkFirstHour } from './first-hour.ts';

/** Issue 28: a new merchant, from the front page's Install form to a test gift on the watch page. */
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

it('walks from install to a test gift: install page, setup guide, theme editor, test gift, e-mail, watch page', async () => {
  const { problems } = await walkFirstHour(browser, app, `first-hour-${Date.now()}.myshopify.com`);
  expect(problems).toEqual([]);
}, 180_000);
