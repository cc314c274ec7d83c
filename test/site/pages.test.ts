import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/** Issue 28: the App Store listing's privacy policy and support page, served by the app. */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: { SUPPORT_EMAIL: 'help@doorstep.example', VIDEO_ORIGINAL_RETENTION_DAYS: '14' } });
});
afterAll(async () => {
  await app?.close();
});

it('serves /privacy: what we receive, why, who else, how long (as configured), and whom to ask', async () => {
  const response = await app.request('GET', '/privacy');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
  for (const heading of ['What we receive', 'Why', 'Who else handles it', 'How long', 'Your rights'])
    expect(response.text).toContain(`<h2>${heading}</h2>`);
  expect(response.text).toContain('deleted 14 days after it was sent');
  expect(response.text).toContain('<a href="mailto:help@doorstep.example">help@doorstep.example</a>');
});

it('serves /support with the contact address, for stores and for senders and recipients', async () => {
  const response = await app.request('GET', '/support');
  expect(response.status).toBe(200);
  expect(response.text).toContain('mailto:help@doorstep.example');
  expect(response.text).toContain('<h2>For stores</h2>');
  expect(response.text).toContain('<h2>For senders and recipients</h2>');
});

it('refuses a SUPPORT_EMAIL that is not an address, at start', async () => {
  await expect(startTestApp({ env: { SUPPORT_EMAIL: 'not an address' } })).rejects.toThrow(/SUPPORT_EMAIL/);
});
