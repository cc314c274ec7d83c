import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeShopify } from './fake-shopify.ts';
import { API_KEY, SECRET, startShopifyTestAppWithFakeShopify, type ShopifyTestApp } from './harness.ts';
import { sessionToken } from './session-token.ts';

/**
 * Issue 14: a Shopify shop's pages and messages carry its brand logo, read from Shopify (the fake
 * Admin API) at install and again whenever the admin's settings load; a logo the merchant sets in
 * the settings wins, and removing it brings Shopify's back. No logo anywhere: the name alone.
 */
let app: ShopifyTestApp;
let fake: FakeShopify;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ app, fake, close } = await startShopifyTestAppWithFakeShopify());
});
afterAll(async () => {
  await close?.();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests inspect JSON
type Json = any;

async function call(
  method: string,
  path: string,
  authorization: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${app.baseUrl}${path}`, {
    method,
    headers: { Authorization: authorization, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const admin = (shop: string, method: string, path: string, body?: unknown) =>
  call(method, `/shopify/api${path}`, `Bearer ${sessionToken(shop, API_KEY, SECRET)}`, body);

/** Installs a shop by token exchange (its first admin call) and returns its /v1 credentials. */
async function installedShop(prefix: string, logo?: string): Promise<{ shop: string; auth: string }> {
  const shop = `${prefix}-${randomBytes(4).toString('hex')}.myshopify.com`;
  if (logo) fake.brandLogos.set(shop, logo);
  const { auth } = await app.addShop(shop);
  expect((await admin(shop, 'GET', '/home')).status).toBe(200);
  return { shop, auth };
}

async function watchPage(auth: string): Promise<string> {
  const order = await call('POST', '/v1/orders', auth, {
    name: 'Ann Sender',
    email: 'ann@example.com',
    recipient_name: 'Bob Recipient',
    recipient_email: 'bob@example.com',
  });
  expect(order.status).toBe(201);
  return (await fetch(order.body.playback_url.replace('https://doorstep.test', app.baseUrl))).text();
}

const branding = (shop: string) =>
  app.services.database.db
    .selectFrom('account_settings')
    .innerJoin('shops', 'shops.account_id', 'account_settings.account_id')
    .select(['logo_url', 'shopify_logo_url'])
    .where('shops.domain', '=', shop)
    .executeTakeFirst();

describe("a Shopify shop's logo", () => {
  it('is read from Shopify at install and shown on the pages, with the shop as its alt text', async () => {
    const logo = 'https://cdn.shopify.com/s/files/1/0001/logo.png';
    const { shop, auth } = await installedShop('branded', logo);
    expect(await branding(shop)).toEqual({ logo_url: null, shopify_logo_url: logo });
    const page = await watchPage(auth);
    expect(page).toMatch(new RegExp(`<img src="${logo}" alt="[^"]+" class="store-logo">`));
  });

  it("follows a change in Shopify when the admin's settings load; the merchant's own logo wins until removed", async () => {
    const first = 'https://cdn.shopify.com/s/files/1/0002/old.png';
    const { shop, auth } = await installedShop('changing', first);
    const changed = 'https://cdn.shopify.com/s/files/1/0002/new.png';
    fake.brandLogos.set(shop, changed);
    const settings = await admin(shop, 'GET', '/settings');
    expect(settings.body).toMatchObject({ logo_url: null, shopify_logo_url: changed, not_watched_note: true });
    expect(await watchPage(auth)).toContain(`<img src="${changed}"`);

    const own = 'https://images.example.com/our-logo.svg';
    const put = await admin(shop, 'PUT', '/settings', { logo_url: own, not_watched_note: false });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ logo_url: own, shopify_logo_url: changed, not_watched_note: false });
    expect(await watchPage(auth)).toContain(`<img src="${own}"`);
    // One setting, whichever door: the shop's account answers the same on /v1.
    expect((await call('GET', '/v1/account/settings', auth)).body).toEqual({
      logo_url: own,
      not_watched_note: false,
      locale: 'en',
    });

    expect((await admin(shop, 'PUT', '/settings', { logo_url: 'http://images.example.com/x.png' })).status).toBe(422);
    await admin(shop, 'PUT', '/settings', { logo_url: null });
    expect(await watchPage(auth)).toContain(`<img src="${changed}"`);
  });

  it('keeps what it knew when Shopify cannot be asked, and shows the name alone when there is no logo', async () => {
    const logo = 'https://cdn.shopify.com/s/files/1/0003/logo.png';
    const { shop } = await installedShop('outage', logo);
    fake.brandLogos.delete(shop);
    fake.failGraphql(500, 10);
    try {
      const settings = await admin(shop, 'GET', '/settings');
      expect(settings.status).toBe(200);
      expect(settings.body.shopify_logo_url).toBe(logo);
    } finally {
      fake.graphqlFailures.length = 0;
    }

    const plain = await installedShop('plain');
    expect(await branding(plain.shop)).toEqual({ logo_url: null, shopify_logo_url: null });
    expect(await watchPage(plain.auth)).not.toContain('class="store-logo"');
  });
});
