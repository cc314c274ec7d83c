import { expect, it } from 'vitest';
import { testAppForFile, type TestApp } from '../support/test-app.ts';

/** Issue 13, a newcomer's walk: the root is a page that points onward, and the tab icon exists. */
let app: TestApp;
testAppForFile((started) => (app = started));

it('GET / in a browser is a small page linking to the API reference and the operators’ endpoints', async () => {
  const response = await fetch(`${app.baseUrl}/`, { headers: { Accept: 'text/html' } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/text\/html/);
  const html = await response.text();
  for (const link of ['href="/docs"', 'href="/v1/openapi.json"', 'href="/healthz"', 'shopify admin-url'])
    expect(html).toContain(link);
  // Every link on it answers (the operator pages ask for their password).
  for (const [, href] of html.matchAll(/href="(\/[^"]*)"/g)) {
    const linked = await fetch(`${app.baseUrl}${href}`);
    expect([200, 401, 503], href).toContain(linked.status);
  }
});

it('/favicon.ico is an icon, not a 404', async () => {
  const response = await fetch(`${app.baseUrl}/favicon.ico`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/image\/svg\+xml/);
  expect(await response.text()).toContain('<svg');
});
