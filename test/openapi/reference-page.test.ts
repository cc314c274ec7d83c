import type { Browser } from 'playwright-core';
import { expect, it } from 'vitest';
import { chromiumForFile, pageWatchingProblems } from '../support/chromium.ts';
import { testAppForFile, type TestApp } from '../support/test-app.ts';

let app: TestApp;
let browser: Browser;
testAppForFile((started) => (app = started));
chromiumForFile((launched) => (browser = launched));

it('renders the API reference at /docs from our own origin, under its CSP, without credentials', async () => {
  // Chromium reports CSP and integrity refusals as console errors: among the page's problems.
  const { page, problems } = await pageWatchingProblems(browser);
  const elsewhere: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(app.baseUrl) && !request.url().startsWith('data:')) elsewhere.push(request.url());
  });
  try {
    const response = await page.goto(`${app.baseUrl}/docs`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toMatch(/default-src 'none'; script-src 'nonce-/);

    // Swagger UI has fetched /v1/openapi.json and drawn the operations.
    await expect.poll(() => page.locator('.opblock-summary-path').count(), { timeout: 20_000 }).toBeGreaterThan(10);
    await page.getByText('Create an order').first().waitFor();
    expect(await page.locator('.title').first().textContent()).toContain('Doorstep API');

    // Swagger UI's stylesheet applied (a refused stylesheet leaves the method badges unpainted).
    const badge = page.locator('.opblock-get .opblock-summary-method').first();
    // The callback runs in the page (DOM types are not in the tests' tsconfig).
    const background = await badge.evaluate(
      (element) =>
        (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(
          element,
        ).backgroundColor,
    );
    expect(background).not.toBe('rgba(0, 0, 0, 0)');
    // Swagger UI found nothing in the document to warn about (it shows warnings and errors in this box).
    expect(await page.locator('.errors-wrapper').allTextContents()).toEqual([]);

    // Opening an operation shows its documented answer.
    await page.locator('.opblock-summary', { hasText: 'Get an order' }).first().click();
    await page.locator('.opblock-body .response-col_status', { hasText: '404' }).first().waitFor();

    expect(problems).toEqual([]);
    expect(elsewhere).toEqual([]);
  } finally {
    await page.close();
  }
});
