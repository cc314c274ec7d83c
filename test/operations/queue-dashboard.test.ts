import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const OPERATOR_PASSWORD = 'dashboard-test-password-0123456789';

let app: TestApp;
let browser: Browser;

beforeAll(async () => {
  app = await startTestApp({ env: { OPERATOR_PASSWORD } });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

it('answers 401 without the operator credentials, for the page, its assets and its API', async () => {
  // Spelt in any case too: the routers match without case, so the check must (API probe, /V1).
  for (const path of [
    '/admin/queues',
    '/admin/queues/api/queues',
    '/admin/queues/static/favicon-32x32.png',
    '/ADMIN/QUEUES/api/queues',
    '/Admin/Queues',
  ]) {
    const response = await app.request('GET', path);
    expect(response.status, path).toBe(401);
    expect(response.headers.get('www-authenticate'), path).toMatch(/^Basic /);
  }
  // Chromium without or with wrong credentials: the only answer is the challenge (headless Chromium
  // either shows the 401 or gives up with ERR_INVALID_AUTH_CREDENTIALS, depending on its auth cache).
  for (const credentials of [undefined, { username: 'operator', password: 'not-the-password' }]) {
    const context = await browser.newContext(credentials ? { httpCredentials: credentials } : {});
    try {
      const page = await context.newPage();
      const statuses: number[] = [];
      page.on('response', (response) => {
        if (response.url().includes('/admin/queues')) statuses.push(response.status());
      });
      await page.goto(`${app.baseUrl}/admin/queues`).catch((error: Error) => {
        if (!error.message.includes('ERR_INVALID_AUTH_CREDENTIALS')) throw error;
      });
      expect(statuses.length).toBeGreaterThan(0);
      expect(statuses.every((status) => status === 401)).toBe(true);
    } finally {
      await context.close();
    }
  }
});

it('loads in Chromium behind the credentials and lists every queue, from assets served locally', async () => {
  const context = await browser.newContext({ httpCredentials: { username: 'operator', password: OPERATOR_PASSWORD } });
  const page = await context.newPage();
  const outside: string[] = [];
  const failed: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(app.baseUrl) && !request.url().startsWith('data:')) outside.push(request.url());
  });
  page.on('response', (response) => {
    if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
  });
  try {
    const response = await page.goto(`${app.baseUrl}/admin/queues`);
    expect(response?.status()).toBe(200);
    for (const queue of app.services.queues.all())
      await page.getByText(queue.name, { exact: true }).first().waitFor({ timeout: 15_000 });
    expect(outside).toEqual([]);
    expect(failed).toEqual([]);
  } finally {
    await context.close();
  }
}, 30_000);
