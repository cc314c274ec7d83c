import { describe, expect, it } from 'vitest';
import type { FakeShopify } from './fake-shopify.ts';
import { API_KEY, SECRET, shopifyTestAppForFile, type ShopifyTestApp } from './harness.ts';
import { sessionToken } from './session-token.ts';

let app: ShopifyTestApp;
let fake: FakeShopify;
shopifyTestAppForFile((started) => ({ app, fake } = started));

// The library answers bots (any non-browser User-Agent, like fetch's) with 410 during OAuth.
const browser = {
  'User-Agent':
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15',
};
const host = (shop: string) => Buffer.from(`admin.shopify.com/store/${shop.split('.')[0]}`).toString('base64url');

describe('/ (the app’s application_url)', () => {
  it('with an id_token (how Shopify opens the app) is the embedded admin; token exchange installs the shop', async () => {
    const shop = `home-${Date.now()}.myshopify.com`;
    const query = new URLSearchParams({
      embedded: '1',
      host: host(shop),
      id_token: sessionToken(shop, API_KEY, SECRET),
      shop,
    });
    const page = await fetch(`${app.baseUrl}/?${query}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    // Only this shop's admin may frame it (the page's own policy is in the same header: admin-page.test.ts).
    expect(page.headers.get('content-security-policy')).toContain(
      `frame-ancestors https://${shop} https://admin.shopify.com`,
    );
    const html = await page.text();
    expect(html).toContain(`<meta name="shopify-api-key" content="${API_KEY}">`);
    // The React admin's shell, with App Bridge as its first script; the data comes from /shopify/api.
    expect(html).toContain('<div id="app"></div>');
    expect(html.match(/<script src="([^"]+)"/)?.[1]).toBe('https://cdn.shopify.com/shopifycloud/app-bridge.js');
    expect(fake.grants.filter((g) => g.shop === shop).map((g) => g.grant_type)).toEqual([
      'urn:ietf:params:oauth:grant-type:token-exchange',
    ]);

    // The old address keeps working, with the same page and headers.
    const old = await fetch(`${app.baseUrl}/shopify/app?${query}`);
    expect(old.status).toBe(200);
    // The same page, but for its per-response nonce.
    const nonceless = (text: string | null) => text?.replace(/nonce-?[^'";]*/g, 'nonce');
    expect(nonceless(old.headers.get('content-security-policy'))).toBe(
      nonceless(page.headers.get('content-security-policy')),
    );
    expect((await old.text()).replace(/nonce="[^"]+"/g, '')).toBe(html.replace(/nonce="[^"]+"/g, ''));
  });

  it('with an id_token that is forged or empty, refuses with 401 JSON', async () => {
    const shop = `home-forged-${Date.now()}.myshopify.com`;
    for (const token of [sessionToken(shop, API_KEY, 'not-the-secret'), '']) {
      const response = await fetch(`${app.baseUrl}/?shop=${shop}&embedded=1&id_token=${token}`);
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: { type: 'unauthorized' } });
    }
    expect(fake.grants.filter((g) => g.shop === shop)).toEqual([]);
  });

  it('refuses a signed token whose dest is not a Shopify store with 401, not 500 (merchant probe: "Invalid URL")', async () => {
    const shop = `home-dest-${Date.now()}.myshopify.com`;
    for (const dest of [shop, 'https://evil.example.com', `http://${shop}`, 'not a url']) {
      const token = sessionToken(shop, API_KEY, SECRET, { dest });
      const response = await fetch(`${app.baseUrl}/?shop=${shop}&embedded=1&id_token=${token}`);
      expect({ dest, status: response.status }).toEqual({ dest, status: 401 });
      expect(await response.json()).toMatchObject({ error: { type: 'unauthorized' } });
    }
    expect(fake.grants.filter((g) => g.shop === shop)).toEqual([]);
  });

  it('with only a shop (the Install form, a link naming the shop), redirects to Shopify’s install page for it', async () => {
    const response = await fetch(`${app.baseUrl}/?shop=Home-Legacy.MyShopify.com&host=${host('home-legacy')}&hmac=x`, {
      redirect: 'manual',
    });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(
      `https://admin.shopify.com/store/home-legacy/oauth/install?client_id=${API_KEY}`,
    );
  });

  it('still starts the authorization-code grant at /shopify/auth, for a browser', async () => {
    const begin = await fetch(`${app.baseUrl}/shopify/auth?shop=home-legacy.myshopify.com`, {
      redirect: 'manual',
      headers: browser,
    });
    expect(begin.status).toBe(302);
    const authorize = new URL(begin.headers.get('location')!);
    expect(`${authorize.origin}${authorize.pathname}`).toBe('https://home-legacy.myshopify.com/admin/oauth/authorize');
  });

  it('in the admin’s iframe without a token, or with an expired one, bounces to App Bridge for a fresh one', async () => {
    const shop = `home-bounce-${Date.now()}.myshopify.com`;
    const expired = sessionToken(shop, API_KEY, SECRET, { ageSeconds: 300 });
    for (const token of [undefined, expired]) {
      const response = await fetch(`${app.baseUrl}/?${embeddedQuery(shop, token)}`, { redirect: 'manual' });
      expect(response.status).toBe(302);
      const bounce = new URL(response.headers.get('location')!, app.baseUrl);
      expect(bounce.pathname).toBe('/auth/session-token');
      expect(bounce.searchParams.get('shop')).toBe(shop);
      expect(bounce.searchParams.get('host')).toBe(host(shop));
      // Where App Bridge reloads with the new token: the same address, without the old token.
      const reload = new URL(bounce.searchParams.get('shopify-reload')!, app.baseUrl);
      expect(reload.pathname).toBe('/');
      expect(reload.searchParams.get('shop')).toBe(shop);
      expect(reload.searchParams.has('id_token')).toBe(false);

      const page = await fetch(bounce);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toContain(
        `frame-ancestors https://${shop} https://admin.shopify.com`,
      );
      const html = await page.text();
      expect(html).toContain(`<meta name="shopify-api-key" content="${API_KEY}">`);
      expect(html).toContain('src="https://cdn.shopify.com/shopifycloud/app-bridge.js"');
    }
    expect(fake.grants.filter((g) => g.shop === shop)).toEqual([]);
  });

  it('a reload of any admin page in the iframe bounces the same way, back to that page (merchant probe: 401 JSON on Orders)', async () => {
    const shop = `home-bounce-pages-${Date.now()}.myshopify.com`;
    const expired = sessionToken(shop, API_KEY, SECRET, { ageSeconds: 300 });
    for (const path of ['/orders', '/orders/ord_123', '/settings', '/shopify/app'])
      for (const token of [undefined, expired]) {
        const response = await fetch(`${app.baseUrl}${path}?${embeddedQuery(shop, token)}`, { redirect: 'manual' });
        expect({ path, status: response.status }).toEqual({ path, status: 302 });
        const bounce = new URL(response.headers.get('location')!, app.baseUrl);
        expect(bounce.pathname).toBe('/auth/session-token');
        expect(new URL(bounce.searchParams.get('shopify-reload')!, app.baseUrl).pathname).toBe(path);
      }
    // Outside the iframe, without a token, it is still refused.
    expect((await fetch(`${app.baseUrl}/orders?shop=${shop}`, { redirect: 'manual' })).status).toBe(401);
  });

  it('reads the Install form as people type a shop: the handle, any case, the store’s or the admin’s address', async () => {
    for (const typed of [
      'home-typed',
      ' Home-Typed.MyShopify.com ',
      'https://home-typed.myshopify.com/',
      'home-typed.myshopify.com/admin/products',
      'https://admin.shopify.com/store/home-typed',
      'admin.shopify.com/store/home-typed/settings',
    ]) {
      const response = await fetch(`${app.baseUrl}/?shop=${encodeURIComponent(typed)}`, { redirect: 'manual' });
      expect({ typed, status: response.status, location: response.headers.get('location') }).toEqual({
        typed,
        status: 302,
        location: `https://admin.shopify.com/store/home-typed/oauth/install?client_id=${API_KEY}`,
      });
    }
  });

  it('with a shop it cannot read, shows the form again saying why (400, not JSON), and redirects nowhere', async () => {
    for (const shop of [
      'evil.example.com',
      '',
      'x.myshopify.com.evil.example.com',
      'javascript:alert(1)',
      '"><img src=x onerror=alert(1)>',
    ]) {
      const response = await fetch(`${app.baseUrl}/?shop=${encodeURIComponent(shop)}`, { redirect: 'manual' });
      expect({ shop, status: response.status }).toEqual({ shop, status: 400 });
      expect(response.headers.get('location')).toBeNull();
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      const page = await response.text();
      expect(page).toContain('That is not a Shopify store address we can read.');
      expect(page).toContain('aria-invalid="true"');
      // What was typed stays in the field, escaped.
      expect(page).not.toContain('<img src=x');
    }
    const twice = await fetch(`${app.baseUrl}/?shop=a.myshopify.com&shop=b.myshopify.com`, { redirect: 'manual' });
    expect(twice.status).toBe(400);
    // In the admin's iframe it is Shopify that names the shop: a bad one is a JSON 400.
    const embedded = await fetch(`${app.baseUrl}/?embedded=1&shop=evil.example.com`, { redirect: 'manual' });
    expect(embedded.status).toBe(400);
    expect(await embedded.json()).toMatchObject({
      error: { type: 'invalid_request', message: expect.stringContaining('my-store.myshopify.com') },
    });
  });

  it('with nothing, is the landing page saying what Doorstep is (not a 404), that nobody may frame', async () => {
    const response = await fetch(`${app.baseUrl}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const policy = response.headers.get('content-security-policy')!;
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain("form-action 'self'");
    const html = await response.text();
    expect(html).toContain('video gift message');
    // Its form is the non-embedded entry: GET / with a shop.
    expect(html).toMatch(/<form method="get" action="\/">/);
    expect(html).toContain('name="shop"');
    // No script from anywhere: nothing to fetch from a CDN.
    expect(html).not.toContain('<script');
    // Its pictures are served by the app, and only those.
    for (const src of html.matchAll(/<img src="([^"]+)"/g)) {
      const image = await fetch(`${app.baseUrl}${src[1]}`);
      expect(image.status, src[1]).toBe(200);
      expect(image.headers.get('content-type')).toBe('image/png');
    }
    expect((await fetch(`${app.baseUrl}/site/images/..%2Fapi.md`)).status).toBe(404);
    expect((await fetch(`${app.baseUrl}/site/images/orders.png`)).status).toBe(404);

    const head = await fetch(`${app.baseUrl}/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });
});

/** The query Shopify's admin opens the app's iframe with, its session token left out when there is none. */
function embeddedQuery(shop: string, token: string | undefined): URLSearchParams {
  return new URLSearchParams({ embedded: '1', host: host(shop), shop, ...(token ? { id_token: token } : {}) });
}
