import { describe, expect, it } from 'vitest';
import { DEVELOPMENT_API_SECRET } from '../../src/shopify/config.ts';
import { runCli } from '../support/processes.ts';
import type { FakeShopify } from './fake-shopify.ts';
import { API_KEY, SECRET, shopifyTestAppForFile, type ShopifyTestApp } from './harness.ts';

/** `npm run cli -- shopify admin-url <shop>`: a signed URL that opens the embedded admin locally. */
let app: ShopifyTestApp;
let fake: FakeShopify;
shopifyTestAppForFile((started) => ({ app, fake } = started));

const decode = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));

describe('npm run cli -- shopify admin-url', () => {
  it('prints the URL Shopify would frame, signed with the configured secret; the app opens the admin with it', async () => {
    const shop = `admin-url-${Date.now()}.myshopify.com`;
    const result = await runCli(['shopify', 'admin-url', shop], {
      PUBLIC_URL: app.baseUrl,
      SHOPIFY_API_KEY: API_KEY,
      SHOPIFY_API_SECRET: SECRET,
      LOG_LEVEL: 'silent',
      // The CLI reads the whole configuration; on the embedded database it needs no carrier credentials.
      DATABASE_URL: '',
    });
    expect(result.code).toBe(0);
    const url = new URL(result.stdout.trim());
    expect(`${url.origin}${url.pathname}`).toBe(`${app.baseUrl}/`);
    expect(url.searchParams.get('embedded')).toBe('1');
    expect(url.searchParams.get('shop')).toBe(shop);
    expect(Buffer.from(url.searchParams.get('host')!, 'base64url').toString()).toBe(
      `admin.shopify.com/store/${shop.split('.')[0]}`,
    );
    const claims = decode(url.searchParams.get('id_token')!);
    expect(claims).toMatchObject({ dest: `https://${shop}`, iss: `https://${shop}/admin`, aud: API_KEY });
    expect(claims.exp - claims.iat).toBe(15 * 60);
    // Real credentials: a word that App Bridge itself only runs inside the Shopify admin.
    expect(result.stderr).toContain('inside the Shopify admin');

    // The app verifies it as a Shopify session token, installs the shop by token exchange, and serves the admin.
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`<meta name="shopify-api-key" content="${API_KEY}">`);
    expect(fake.grants.filter((g) => g.shop === shop).map((g) => g.grant_type)).toEqual([
      'urn:ietf:params:oauth:grant-type:token-exchange',
    ]);
  }, 60_000);

  it('signs with the public development secret when none is configured (refused by an app with another secret)', async () => {
    const shop = `admin-url-dev-${Date.now()}.myshopify.com`;
    const result = await runCli(['shopify', 'admin-url', shop], {
      PUBLIC_URL: 'http://localhost:3000',
      SHOPIFY_API_KEY: '',
      SHOPIFY_API_SECRET: '',
      LOG_LEVEL: 'silent',
      // The CLI reads the whole configuration; on the embedded database it needs no carrier credentials.
      DATABASE_URL: '',
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const url = new URL(result.stdout.trim());
    expect(url.origin).toBe('http://localhost:3000');
    const token = url.searchParams.get('id_token')!;
    expect(decode(token).aud).toBe('doorstep-development-api-key');
    const { createHmac } = await import('node:crypto');
    const [header, payload, signature] = token.split('.');
    expect(createHmac('sha256', DEVELOPMENT_API_SECRET).update(`${header}.${payload}`).digest('base64url')).toBe(
      signature,
    );
    const refused = await fetch(`${app.baseUrl}/?${url.searchParams}`);
    expect(refused.status).toBe(401);
  }, 60_000);

  it('refuses what is not a shop domain', async () => {
    const result = await runCli(['shopify', 'admin-url', 'evil.example.com'], {
      LOG_LEVEL: 'silent',
      DATABASE_URL: '',
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('my-store.myshopify.com');
    expect(result.stdout).toBe('');
  }, 60_000);
});
