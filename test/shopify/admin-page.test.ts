import { get as httpGet } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVELOPMENT_API_KEY, DEVELOPMENT_API_SECRET } from '../../src/shopify/config.ts';
import { registerShop } from '../../src/shopify/shops.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { embeddedUrl } from './embedded-admin.ts';
import { API_KEY, shopifyTestAppForFile, type ShopifyTestApp } from './harness.ts';
import { sessionToken } from './session-token.ts';

/** The embedded admin's shell, assets and policy as HTTP; what it does in a browser: embedded-admin.test.ts. */
let app: ShopifyTestApp;
shopifyTestAppForFile((started) => ({ app } = started));

const shop = `page-${Date.now()}.myshopify.com`;

async function adminPage(path = '/') {
  const response = await fetch(embeddedUrl(app.baseUrl, shop, path));
  expect(response.status).toBe(200);
  return { html: await response.text(), csp: response.headers.get('content-security-policy')!, response };
}

describe('the embedded admin page', () => {
  it('loads App Bridge from Shopify’s CDN first, then Polaris’s CSS and our bundle from our origin, pinned by SRI', async () => {
    const { html, response } = await adminPage();
    expect(response.headers.get('cache-control')).toBe('no-store');
    const scripts = [...html.matchAll(/<script src="([^"]+)"([^>]*)><\/script>/g)].map((m) => ({
      src: m[1]!,
      rest: m[2]!,
    }));
    expect(scripts.map((s) => s.src)).toEqual([
      'https://cdn.shopify.com/shopifycloud/app-bridge.js',
      expect.stringMatching(/^\/assets\/admin-ui\.[0-9a-f]{16}\.js$/),
    ]);
    // Shopify requires App Bridge loaded synchronously, before any other script.
    expect(scripts[0]!.rest).not.toMatch(/async|defer/);
    expect(html.indexOf('name="shopify-api-key"')).toBeLessThan(html.indexOf('<script'));
    const stylesheet = /<link rel="stylesheet" href="(\/assets\/polaris\.[0-9a-f]{16}\.css)" integrity="([^"]+)">/.exec(
      html,
    );
    expect(stylesheet).not.toBeNull();
    expect(html).not.toMatch(/unpkg|jsdelivr|polaris\.shopify\.com/);

    for (const [url, integrity, type] of [
      [stylesheet![1]!, stylesheet![2]!, 'text/css; charset=utf-8'],
      [scripts[1]!.src, /integrity="([^"]+)"/.exec(scripts[1]!.rest)![1]!, 'text/javascript; charset=utf-8'],
    ] as const) {
      const asset = await fetch(`${app.baseUrl}${url}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('content-type')).toBe(type);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      const body = await asset.text();
      expect(`sha256-${createHash('sha256').update(body).digest('base64')}`).toBe(integrity);
    }
    // Compressed for a browser that takes it (merchant probe: ~1 MB moved on every cold load).
    for (const url of [stylesheet![1]!, scripts[1]!.src]) {
      const plain = await rawGet(`${app.baseUrl}${url}`, 'identity');
      expect(plain.encoding).toBeUndefined();
      for (const coding of ['br', 'gzip'] as const) {
        const packed = await rawGet(`${app.baseUrl}${url}`, `${coding}, deflate`);
        expect({ url, coding: packed.encoding, vary: packed.vary }).toEqual({ url, coding, vary: 'Accept-Encoding' });
        expect(packed.bytes.length).toBeLessThan(plain.bytes.length * 0.4);
        const unpacked = coding === 'br' ? brotliDecompressSync(packed.bytes) : gunzipSync(packed.bytes);
        expect(unpacked.equals(plain.bytes)).toBe(true);
      }
    }
    const polaris = await (await fetch(`${app.baseUrl}${stylesheet![1]}`)).text();
    expect(polaris).toContain('.Polaris-Page');
    // The video pages' assets are still served beside ours; an unknown one is still 404.
    expect((await fetch(`${app.baseUrl}/assets/admin-ui.0000000000000000.js`)).status).toBe(404);
  });

  it('has a policy: scripts by nonce or from Shopify’s CDN, no inline script, framed only by the shop’s admin', async () => {
    const { html, csp } = await adminPage();
    const nonce = /<script src="[^"]+" nonce="([^"]+)"><\/script>/.exec(html)![1]!;
    const directives = Object.fromEntries(
      csp
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .filter((d) => d[0])
        .map(([name, ...values]) => [name, values]),
    );
    expect(directives['default-src']).toEqual(["'none'"]);
    expect(directives['script-src']).toEqual([`'nonce-${nonce}'`, 'https://cdn.shopify.com']);
    expect(directives['style-src']).not.toContain("'unsafe-inline'");
    expect(directives['connect-src']).toContain("'self'");
    expect(directives['frame-ancestors']).toEqual([`https://${shop}`, 'https://admin.shopify.com']);
    // Every script tag carries the nonce; nothing inline.
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(html.match(new RegExp(`nonce="${nonce.replace(/[+/=]/g, '\\$&')}"`, 'g'))).toHaveLength(2);
    // A new nonce per response.
    expect((await adminPage()).csp).not.toBe(csp);
  });

  it('is the page at each of its own paths too (Shopify reloads the frame where the merchant was)', async () => {
    const home = (await adminPage('/')).html.replace(/nonce="[^"]+"/g, '');
    for (const path of ['/orders', '/orders/some-order', '/settings', '/shopify/app']) {
      expect((await adminPage(path)).html.replace(/nonce="[^"]+"/g, ''), path).toBe(home);
    }
    // Without a session token, a clear 401 and no page.
    const anonymous = await fetch(`${app.baseUrl}/settings`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: { type: 'unauthorized' } });
  });

  it('never serves the App Bridge stand-in when the app has real credentials', async () => {
    const { html } = await adminPage();
    expect(html).not.toContain('/dev/app-bridge.js');
    expect((await fetch(`${app.baseUrl}/dev/app-bridge.js`)).status).toBe(404);
  });
});

describe('with the built-in development credentials', () => {
  let dev: TestApp;
  beforeAll(async () => {
    // No SHOPIFY_API_KEY / SECRET: the public development pair (src/shopify/config.ts).
    dev = await startTestApp({});
  });
  afterAll(async () => {
    await dev?.close();
  });

  it('the page loads the stand-in from /dev/app-bridge.js (it works outside the Shopify admin), signing with the public secret', async () => {
    expect(dev.services.config.shopify.development).toBe(true);
    const devShop = `dev-${Date.now()}.myshopify.com`;
    // A shop that holds a token needs no token exchange (the CLI's `shops add` registers one the same way).
    await registerShop(dev.services.database.db, devShop, {
      tokens: dev.services.shopify.tokens.seal(devShop, {
        accessToken: 'shpat_dev',
        accessTokenExpiresAt: new Date(Date.now() + 3_600_000),
        refreshToken: 'shprt_dev',
        refreshTokenExpiresAt: new Date(Date.now() + 86_400_000),
        scopes: 'read_orders',
      }),
    });
    const url = `${dev.baseUrl}/?shop=${devShop}&embedded=1&id_token=${sessionToken(devShop, DEVELOPMENT_API_KEY, DEVELOPMENT_API_SECRET)}`;
    const page = await fetch(url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html.match(/<script src="([^"]+)"/)?.[1]).toBe('/dev/app-bridge.js');
    expect(html).not.toContain('cdn.shopify.com/shopifycloud/app-bridge.js');
    const standin = await fetch(`${dev.baseUrl}/dev/app-bridge.js`);
    expect(standin.status).toBe(200);
    expect(standin.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const script = await standin.text();
    expect(script).toContain(DEVELOPMENT_API_SECRET);
    expect(script).toContain('gid://shopify/Product/8000000001');
    expect(API_KEY).not.toBe(DEVELOPMENT_API_KEY);
  });
});

/** A GET as a browser sends it, the body as it came over the wire (fetch would decode it). */
function rawGet(url: string, acceptEncoding: string): Promise<{ bytes: Buffer; encoding?: string; vary?: string }> {
  return new Promise((resolve, reject) => {
    httpGet(url, { headers: { 'Accept-Encoding': acceptEncoding } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          bytes: Buffer.concat(chunks),
          encoding: response.headers['content-encoding'],
          vary: response.headers.vary,
        }),
      );
    }).on('error', reject);
  });
}
