import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, validOrder, type TestAccount, type TestApp } from '../support/test-app.ts';

let app: TestApp;
let store: TestAccount;
let other: TestAccount;

beforeAll(async () => {
  app = await startTestApp();
  store = await app.createAccount('Maple & Thread');
  other = await app.createAccount('Other store');
});
afterAll(async () => {
  await app.close();
});

describe('GET and PUT /v1/account/settings', () => {
  it('answers the defaults before anything was set: no logo, the not-watched note on', async () => {
    const response = await other.request('GET', '/v1/account/settings');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ logo_url: null, not_watched_note: true });
  });

  it('changes only the fields sent, and each account keeps its own', async () => {
    const logo = 'https://cdn.maplethread.example/logo.png';
    const set = await store.request('PUT', '/v1/account/settings', { logo_url: logo });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ logo_url: logo, not_watched_note: true });
    const off = await store.request('PUT', '/v1/account/settings', { not_watched_note: false });
    expect(off.body).toEqual({ logo_url: logo, not_watched_note: false });
    expect((await store.request('GET', '/v1/account/settings')).body).toEqual({
      logo_url: logo,
      not_watched_note: false,
    });
    expect((await other.request('GET', '/v1/account/settings')).body).toEqual({
      logo_url: null,
      not_watched_note: true,
    });
  });

  it('refuses what is not an https URL or a boolean, with one message per field, and changes nothing', async () => {
    const before = (await store.request('GET', '/v1/account/settings')).body;
    for (const [body, field] of [
      [{ logo_url: 'http://cdn.example.com/logo.png' }, 'logo_url'],
      [{ logo_url: 'javascript:alert(1)' }, 'logo_url'],
      [{ logo_url: `https://cdn.example.com/${'a'.repeat(2_000)}` }, 'logo_url'],
      [{ logo_url: 42 }, 'logo_url'],
      [{ not_watched_note: 'yes' }, 'not_watched_note'],
      [{ logo: 'https://cdn.example.com/logo.png' }, 'logo'],
    ] as const) {
      const response = await store.request('PUT', '/v1/account/settings', body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.error.type).toBe('validation_error');
      expect(Object.keys(response.body.error.fields)).toEqual([field]);
    }
    expect(
      (await store.request('PUT', '/v1/account/settings', 'not json', { 'Content-Type': 'text/plain' })).status,
    ).toBe(415);
    expect((await store.request('GET', '/v1/account/settings')).body).toEqual(before);
  });

  it('needs credentials', async () => {
    expect((await app.request('GET', '/v1/account/settings')).status).toBe(401);
    expect((await app.request('PUT', '/v1/account/settings', { body: { not_watched_note: false } })).status).toBe(401);
  });

  it("puts the logo on the record and watch pages, named by the store's name, and lets the page load it", async () => {
    const logo = 'https://cdn.maplethread.example/logo.png';
    await store.request('PUT', '/v1/account/settings', { logo_url: logo });
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    for (const url of [order.record_url, order.playback_url]) {
      const page = await app.request('GET', new URL(url).pathname);
      expect(page.text).toContain(`<img src="${logo}" alt="Maple &amp; Thread" class="store-logo">`);
      expect(page.headers.get('content-security-policy')).toContain(
        "img-src 'self' data: https://cdn.maplethread.example",
      );
    }
    // Removed: the name alone, and no other origin may serve images.
    await store.request('PUT', '/v1/account/settings', { logo_url: null });
    const page = await app.request('GET', new URL(order.record_url).pathname);
    expect(page.text).not.toContain('store-logo"');
    expect(page.headers.get('content-security-policy')).toContain("img-src 'self' data:;");
  });
});
