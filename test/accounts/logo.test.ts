import { beforeAll, describe, expect, it } from 'vitest';
import { LOGO_MAX_HEIGHT, LOGO_MAX_WIDTH } from '../../src/accounts/logo.ts';
import { testImage as image } from '../support/images.ts';
import { testAppForFile, validOrder, type TestAccount, type TestApp } from '../support/test-app.ts';

/**
 * Issue 28: the merchant uploads the store's logo (the Storefront API's `shop.brand` is not read any
 * more). Real ffmpeg re-encodes it; the pages and e-mails load it from Doorstep's own URL.
 */
let app: TestApp;
let store: TestAccount;

testAppForFile((started) => (app = started));
beforeAll(async () => {
  store = await app.createAccount('Maple & Thread');
});

const pngSize = (png: Buffer) => ({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) });

describe('PUT /v1/account/logo', () => {
  it('re-encodes the upload as a PNG that fits the logo box, serves it under its hash for ever, and pages show it', async () => {
    const uploaded = await store.request('PUT', '/v1/account/logo', await image(1800, 400, 'png'), {
      'Content-Type': 'image/png',
    });
    expect(uploaded.status).toBe(200);
    const logoUrl: string = uploaded.body.logo_url;
    expect(logoUrl).toMatch(new RegExp(`^https://doorstep\\.test/brand/${store.id}/[0-9a-f]{64}\\.png$`));
    expect((await store.request('GET', '/v1/account/settings')).body.logo_url).toBe(logoUrl);

    const served = await fetch(`${app.baseUrl}${new URL(logoUrl).pathname}`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const png = Buffer.from(await served.arrayBuffer());
    // 1800×400 scaled to fit 600×200, the proportions kept.
    expect(pngSize(png)).toEqual({ width: LOGO_MAX_WIDTH, height: 133 });

    // The record page shows it.
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    const page = await app.request('GET', new URL(order.record_url).pathname);
    expect(page.text).toContain(`<img src="${logoUrl}" alt="Maple &amp; Thread" class="store-logo">`);
  });

  it('takes JPEG and WebP; a small logo keeps its size', async () => {
    for (const [format, type] of [
      ['jpg', 'image/jpeg'],
      ['webp', 'image/webp'],
    ] as const) {
      const uploaded = await store.request('PUT', '/v1/account/logo', await image(320, 100, format), {
        'Content-Type': type,
      });
      expect(uploaded.status, format).toBe(200);
      const png = Buffer.from(
        await (await fetch(`${app.baseUrl}${new URL(uploaded.body.logo_url).pathname}`)).arrayBuffer(),
      );
      expect(pngSize(png), format).toEqual({ width: 320, height: 100 });
    }
    expect(LOGO_MAX_HEIGHT).toBe(200);
  });

  it('refuses what is not a logo, in words, and keeps the logo it had', async () => {
    const before = (await store.request('GET', '/v1/account/settings')).body.logo_url;
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const truncated = (await image(300, 100, 'png')).subarray(0, 60);
    for (const [body, type, status, field] of [
      [svg, 'image/svg+xml', 422, 'logo'],
      [Buffer.from('not an image'), 'image/png', 422, 'logo'],
      [truncated, 'image/png', 422, 'logo'],
      [Buffer.from('{}'), 'application/json', 415, null],
      [Buffer.alloc(5 * 1024 * 1024 + 1, 1), 'image/png', 413, null],
    ] as const) {
      const refused = await store.request('PUT', '/v1/account/logo', body, { 'Content-Type': type });
      expect(refused.status, type).toBe(status);
      expect(refused.body.error.message, type).toEqual(expect.any(String));
      if (field) expect(Object.keys(refused.body.error.fields), type).toEqual([field]);
    }
    expect((await store.request('GET', '/v1/account/settings')).body.logo_url).toBe(before);
  });

  it('a new logo replaces the old (whose URL then answers 404); DELETE removes it, and only its own URL', async () => {
    const first = (
      await store.request('PUT', '/v1/account/logo', await image(200, 80, 'png'), { 'Content-Type': 'image/png' })
    ).body.logo_url as string;
    const second = (
      await store.request('PUT', '/v1/account/logo', await image(240, 80, 'png'), { 'Content-Type': 'image/png' })
    ).body.logo_url as string;
    expect(second).not.toBe(first);
    expect((await fetch(`${app.baseUrl}${new URL(first).pathname}`)).status).toBe(404);
    expect((await fetch(`${app.baseUrl}${new URL(second).pathname}`)).status).toBe(200);

    const removed = await store.request('DELETE', '/v1/account/logo');
    expect(removed.status).toBe(200);
    expect(removed.body.logo_url).toBeNull();
    expect((await fetch(`${app.baseUrl}${new URL(second).pathname}`)).status).toBe(404);

    // Uploaded, then replaced by a typed URL: removing the upload leaves the merchant's URL alone.
    await store.request('PUT', '/v1/account/logo', await image(200, 80, 'png'), { 'Content-Type': 'image/png' });
    const typed = 'https://cdn.maplethread.example/logo.png';
    await store.request('PUT', '/v1/account/settings', { logo_url: typed });
    expect((await store.request('DELETE', '/v1/account/logo')).body.logo_url).toBe(typed);
  });

  it('serves nothing for a name that is not a logo, or another account', async () => {
    const other = await app.createAccount('Other store');
    const mine = (
      await store.request('PUT', '/v1/account/logo', await image(200, 80, 'png'), { 'Content-Type': 'image/png' })
    ).body.logo_url as string;
    const sha = /([0-9a-f]{64})\.png$/.exec(mine)![1];
    for (const pathname of [
      `/brand/${other.id}/${sha}.png`,
      `/brand/${store.id}/${sha}.jpg`,
      `/brand/${store.id}/x.png`,
    ]) {
      const response = await fetch(`${app.baseUrl}${pathname}`);
      expect(response.status, pathname).toBe(404);
      expect(((await response.json()) as { error: { type: string } }).error.type).toBe('not_found');
    }
  });
});
