import { createHmac, randomUUID } from 'node:crypto';
import { UpdateQueryNode } from 'kysely';
import { describe, expect, it } from 'vitest';
import { API_KEY, getJson, SECRET, shopifyTestAppForFile, type ShopifyTestApp } from './harness.ts';
import type { FakeShopify } from './fake-shopify.ts';
import { openStoredToken } from '../../src/shopify/auth/stored-tokens.ts';

let app: ShopifyTestApp;
let fake: FakeShopify;
shopifyTestAppForFile((started) => ({ app, fake } = started));

const db = () => app.services.database.db;
// The library answers bots (any non-browser User-Agent, like fetch's) with 410 during OAuth.
const browser = {
  'User-Agent':
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15',
};
const shopRow = (shop: string) =>
  db().selectFrom('shops').selectAll().where('domain', '=', shop).executeTakeFirstOrThrow();

function sessionToken(shop: string, secret = SECRET): string {
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const unsigned = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ iss: `https://${shop}/admin`, dest: `https://${shop}`, aud: API_KEY, sub: '42', exp: now + 60, nbf: now - 5, iat: now, jti: randomUUID(), sid: randomUUID() })}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

describe('install', () => {
  it('OAuth: /shopify/auth redirects to Shopify; the callback stores an expiring token pair and creates the account', async () => {
    const shop = `oauth-${Date.now()}.myshopify.com`;
    const begin = await fetch(`${app.baseUrl}/shopify/auth?shop=${shop}`, { redirect: 'manual', headers: browser });
    expect(begin.status).toBe(302);
    const location = new URL(begin.headers.get('location')!);
    expect(location.host).toBe(shop);
    expect(location.searchParams.get('scope')).toBe(
      'read_orders,read_fulfillments,read_locales,read_themes,write_products,write_publications',
    );
    expect(location.searchParams.get('redirect_uri')).toBe(`${app.baseUrl}/shopify/auth/callback`);
    const state = location.searchParams.get('state')!;
    const cookies = begin.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');

    const query: Record<string, string> = {
      code: 'auth-code',
      host: Buffer.from(`${shop}/admin`).toString('base64url'),
      shop,
      state,
      timestamp: String(Math.floor(Date.now() / 1000)),
    };
    const message = Object.keys(query)
      .sort()
      .map((k) => `${k}=${query[k]}`)
      .join('&');
    const hmac = createHmac('sha256', SECRET).update(message).digest('hex');
    const callback = await fetch(`${app.baseUrl}/shopify/auth/callback?${new URLSearchParams({ ...query, hmac })}`, {
      redirect: 'manual',
      headers: { ...browser, Cookie: cookies },
    });
    expect(callback.status).toBe(302);
    expect(callback.headers.get('location')).toBe(`https://${shop}/admin/apps/${API_KEY}`);

    const row = await shopRow(shop);
    // Stored sealed (docs/shopify.md "Tokens at rest"): no token Shopify issued to the shop is in the row.
    expect(row).toMatchObject({
      active: true,
      access_token: expect.stringMatching(/^enc:v1:[0-9a-f]{8}:/),
      refresh_token: expect.stringMatching(/^enc:v1:[0-9a-f]{8}:/),
    });
    const issued = [...fake.accessTokens, ...fake.refreshTokens].filter(([, t]) => t.shop === shop).map(([k]) => k);
    expect(issued).toHaveLength(2);
    for (const token of issued) expect(JSON.stringify(row)).not.toContain(token);
    expect(JSON.stringify(row)).not.toMatch(/shpat_|shprt_/);
    expect(row.access_token_expires_at!.getTime()).toBeGreaterThan(Date.now() + 3_000_000);
    // …and what the app reads back is the token Shopify issued, which works at Shopify.
    const token = await app.shopify.tokens.accessToken(shop);
    expect(token).toMatch(/^shpat_/);
    expect(fake.shopOfAccessToken(token)).toBe(shop);
    const account = await db()
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', row.account_id)
      .executeTakeFirstOrThrow();
    expect(account.name).toBe(`Fake ${shop.split('.')[0]}`);
  });

  it('refuses a callback with a forged HMAC', async () => {
    const shop = `forged-${Date.now()}.myshopify.com`;
    const begin = await fetch(`${app.baseUrl}/shopify/auth?shop=${shop}`, { redirect: 'manual', headers: browser });
    const state = new URL(begin.headers.get('location')!).searchParams.get('state')!;
    const cookies = begin.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const response = await fetch(
      `${app.baseUrl}/shopify/auth/callback?code=x&shop=${shop}&state=${state}&timestamp=${Math.floor(Date.now() / 1000)}&hmac=00`,
      { redirect: 'manual', headers: { ...browser, Cookie: cookies } },
    );
    expect(response.status).toBe(400);
    expect(await db().selectFrom('shops').select('domain').where('domain', '=', shop).execute()).toEqual([]);
  });

  it('embedded admin: a session token installs through token exchange, and re-activates after uninstall', async () => {
    const shop = `embedded-${Date.now()}.myshopify.com`;
    const page = await fetch(`${app.baseUrl}/shopify/app?shop=${shop}&id_token=${sessionToken(shop)}`);
    expect(page.status).toBe(200);
    // The embedded admin's shell (React + Polaris; its data comes from /shopify/api).
    expect(await page.text()).toContain('<div id="app"></div>');
    const first = await shopRow(shop);
    expect(fake.grants.filter((g) => g.shop === shop).map((g) => g.grant_type)).toEqual([
      'urn:ietf:params:oauth:grant-type:token-exchange',
    ]);

    await app.webhook(shop, 'app/uninstalled', { id: 1 });
    expect((await shopRow(shop)).active).toBe(false);
    await fetch(`${app.baseUrl}/shopify/app?shop=${shop}&id_token=${sessionToken(shop)}`);
    const again = await shopRow(shop);
    expect(again).toMatchObject({ active: true, account_id: first.account_id, uninstalled_at: null });

    const forged = await fetch(`${app.baseUrl}/shopify/app?id_token=${sessionToken(shop, 'wrong')}`);
    expect(forged.status).toBe(401);
  });

  it('settings API: the shop switches the Shopify delivered fallback off and sets carrier names', async () => {
    const shop = `settings-${Date.now()}.myshopify.com`;
    const token = sessionToken(shop);
    const response = await fetch(`${app.baseUrl}/shopify/api/settings`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ fallback_delivered: false, carrier_aliases: { 'Royal Mail': 'USPS' } }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      fallback_delivered: false,
      carrier_aliases: { 'Royal Mail': 'usps' },
    });
    const bad = await fetch(`${app.baseUrl}/shopify/api/settings`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ carrier_aliases: { X: 'dhl' } }),
    });
    expect(bad.status).toBe(422);
  });
});

describe('expiring offline tokens', () => {
  it('refreshes once per shop under concurrency and stores the rotated pair together', async () => {
    const shop = `refresh-${Date.now()}.myshopify.com`;
    fake.accessTokenLifetime = 60; // inside the refresh margin: the next use must refresh
    await fetch(`${app.baseUrl}/shopify/app?id_token=${sessionToken(shop)}`);
    fake.accessTokenLifetime = 3600;
    const before = await shopRow(shop);

    // The first caller's refresh is held at Shopify while seven more ask: they must share it.
    const refresh = fake.holdRefreshes();
    const first = app.shopify.tokens.accessToken(shop);
    await refresh.arrived;
    const others = Array.from({ length: 7 }, () => app.shopify.tokens.accessToken(shop));
    refresh.release();
    const tokens = await Promise.all([first, ...others]);
    expect(new Set(tokens).size).toBe(1);
    expect(fake.grants.filter((g) => g.shop === shop && g.grant_type === 'refresh_token')).toHaveLength(1);
    const after = await shopRow(shop);
    // The rotated pair is stored sealed, under the current key.
    expect(after.access_token).not.toContain(tokens[0]);
    expect(openStoredToken(app.shopify.deps.tokenCipher, shop, 'access_token', after.access_token!)).toBe(tokens[0]);
    expect(app.shopify.deps.tokenCipher.isCurrent(after.refresh_token!)).toBe(true);
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(after.access_token_expires_at!.getTime()).toBeGreaterThan(Date.now() + 3_000_000);
    expect(after.token_refresh_claimed_until).toBeNull();
    // The fresh token works against the Admin API.
    const { fetchShopProfile } = await import('../../src/shopify/admin-api.ts');
    expect((await fetchShopProfile(app.shopify.library, tokens[0]!, shop)).name).toBe(`Fake ${shop.split('.')[0]}`);
  });

  it('a second process waits for the refresh the first one holds', async () => {
    const shop = `lease-${Date.now()}.myshopify.com`;
    fake.accessTokenLifetime = 60;
    await fetch(`${app.baseUrl}/shopify/app?id_token=${sessionToken(shop)}`);
    fake.accessTokenLifetime = 3600;
    const { ShopTokens } = await import('../../src/shopify/auth/tokens.ts');
    const { createLogger } = await import('../../src/logger.ts');
    // The second process's database, watched for the moment its claim on the refresh is refused
    // (the one UPDATE … RETURNING it makes comes back empty): from then on it can only wait.
    const claims = new WeakSet<object>();
    let refused!: () => void;
    const claimRefused = new Promise<void>((resolve) => (refused = resolve));
    const watched = db().withPlugin({
      transformQuery: (args) => {
        if (UpdateQueryNode.is(args.node) && args.node.returning) claims.add(args.queryId);
        return args.node;
      },
      transformResult: async (args) => {
        if (claims.has(args.queryId) && args.result.rows.length === 0) refused();
        return args.result;
      },
    });
    const other = new ShopTokens({
      db: watched,
      shopify: app.shopify.library,
      logger: createLogger('silent'),
      cipher: app.shopify.deps.tokenCipher,
    });
    // The first process's refresh is in flight at Shopify (it holds the lease) when the second asks;
    // it answers only once the second has been refused the lease and is waiting.
    const refresh = fake.holdRefreshes();
    const first = app.shopify.tokens.accessToken(shop);
    await refresh.arrived;
    const second = other.accessToken(shop);
    await claimRefused;
    refresh.release();
    const [a, b] = await Promise.all([first, second]);
    expect(a).toBe(b);
    expect(fake.grants.filter((g) => g.shop === shop && g.grant_type === 'refresh_token')).toHaveLength(1);
  });
});

describe('shops without credentials', () => {
  it('an uninstalled shop has no token to use', async () => {
    const shop = `gone-${Date.now()}.myshopify.com`;
    await app.addShop(shop);
    await expect(app.shopify.tokens.accessToken(shop)).rejects.toThrow(/no access token/);
    expect((await getJson(app.baseUrl, '/shopify/api/settings', '')).status).toBe(401);
  });
});
