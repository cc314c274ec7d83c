import { describe, expect, it } from 'vitest';
import { fakeShopifyId, orderPayload } from '../../src/shopify/dev/webhook-payloads.ts';
import { registerShop } from '../../src/shopify/shops.ts';
import { bindingNeedsShopLookUp, type LinkOfShopifyOrder } from '../../src/shopify/intake/webhook-shop-check.ts';
import type { FakeShopify } from './fake-shopify.ts';
import { shopifyTestAppForFile, type ShopifyTestApp } from './harness.ts';

/**
 * Issue 31 item 1: Shopify signs the body, not the X-Shopify-Shop-Domain header. A genuinely signed
 * orders/create with no order_status_url (or one on a custom domain), replayed under another shop's
 * header, must not take the order — and must not lock the real shop out: before a first sight of an
 * order id binds it to a shop, the payload names the shop itself or the shop's Admin API knows the
 * order (`order(id:)`, asked of the fake Shopify through its wire format).
 */
let app: ShopifyTestApp;
let fake: FakeShopify;
shopifyTestAppForFile((started) => ({ app, fake } = started));

const db = () => app.services.database.db;
let counter = 0;

/** A shop installed through OAuth: it holds an offline token the fake Shopify issued. */
async function connectedShop() {
  const shop = `binding-${Date.now()}-${counter++}.myshopify.com`;
  const issued = fake.issueTokens(shop);
  const now = Date.now();
  const registered = await registerShop(db(), shop, {
    tokens: app.shopify.tokens.seal(shop, {
      accessToken: issued.access_token,
      accessTokenExpiresAt: new Date(now + issued.expires_in * 1000),
      refreshToken: issued.refresh_token,
      refreshTokenExpiresAt: new Date(now + issued.refresh_token_expires_in * 1000),
      scopes: issued.scope,
    }),
  });
  return { shop, accountId: registered.shop.account_id };
}

const receipt = (webhookId: string) =>
  db().selectFrom('webhook_receipts').selectAll().where('webhook_id', '=', webhookId).executeTakeFirstOrThrow();
const ordersOf = (accountId: string) =>
  db().selectFrom('orders').select(['id', 'recipient_email']).where('account_id', '=', accountId).execute();
const linksOf = (shopifyOrderId: number) =>
  db()
    .selectFrom('shopify_order_links')
    .select(['shop', 'line_item_id'])
    .where('shopify_order_id', '=', String(shopifyOrderId))
    .execute();
const lookUpsOf = (shopifyOrderId: number) =>
  fake.orderLookUps.filter((asked) => asked.id === `gid://shopify/Order/${shopifyOrderId}`);
const videoOrder = (id: number, extra: Record<string, unknown> = {}) => ({
  ...(orderPayload({ id, lines: [{ id: id + 1, recipientEmail: 'bob@example.com' }] }) as object),
  ...extra,
});

describe("a replay under another shop's header binds nothing", () => {
  it('replay first (no order_status_url): refused as not that shop’s, and the real shop’s webhook then makes its order', async () => {
    const real = await connectedShop();
    const other = await connectedShop();
    const id = fakeShopifyId();
    fake.placeOrder(real.shop, id);
    const payload = videoOrder(id);

    const replayed = await app.webhook(other.shop, 'orders/create', payload, {
      replay: true,
      expectProcessingError: true,
    });
    expect(replayed.processingError?.message).toMatch(
      new RegExp(`Admin API of ${other.shop.replaceAll('.', '\\.')} does not know Shopify order ${id}`),
    );
    expect(await receipt(replayed.webhookId)).toMatchObject({ status: 'failed' });
    expect((await receipt(replayed.webhookId)).error).toMatch(/does not know Shopify order/);
    expect(await ordersOf(other.accountId)).toEqual([]);
    expect(await linksOf(id)).toEqual([]);

    // The genuine webhook of the order's own shop, after the replay: it is the real shop's order.
    const genuine = await app.webhook(real.shop, 'orders/create', payload);
    expect(await receipt(genuine.webhookId)).toMatchObject({ status: 'processed' });
    expect(await ordersOf(real.accountId)).toHaveLength(1);
    expect(await linksOf(id)).toEqual([{ shop: real.shop, line_item_id: String(id + 1) }]);
    expect(lookUpsOf(id).map((asked) => asked.shop)).toEqual([other.shop, real.shop]);
  });

  it('genuine first, replay second: the replay is refused and the real shop keeps its one order', async () => {
    const real = await connectedShop();
    const other = await connectedShop();
    const id = fakeShopifyId();
    const payload = videoOrder(id);
    await app.webhook(real.shop, 'orders/create', payload);

    const replayed = await app.webhook(other.shop, 'orders/create', payload, {
      replay: true,
      expectProcessingError: true,
    });
    expect(replayed.processingError?.message).toMatch(/belongs to another shop/);
    expect(await ordersOf(other.accountId)).toEqual([]);
    expect(await ordersOf(real.accountId)).toHaveLength(1);

    // The real shop's later webhooks of the order are still processed, with no further look-up.
    await app.webhook(real.shop, 'orders/updated', payload);
    expect(await ordersOf(real.accountId)).toHaveLength(1);
    expect(lookUpsOf(id).map((asked) => asked.shop)).toEqual([real.shop]);
  });

  it('an order_status_url on a custom storefront domain names no shop: the Admin API decides', async () => {
    const real = await connectedShop();
    const other = await connectedShop();
    const id = fakeShopifyId();
    fake.placeOrder(real.shop, id);
    const payload = videoOrder(id, { order_status_url: `https://gifts.example.com/1/orders/${id}/authenticate` });

    const replayed = await app.webhook(other.shop, 'orders/create', payload, {
      replay: true,
      expectProcessingError: true,
    });
    expect(replayed.processingError?.message).toMatch(/does not know Shopify order/);
    expect(await receipt(replayed.webhookId)).toMatchObject({ status: 'failed' });
    expect(await ordersOf(other.accountId)).toEqual([]);

    await app.webhook(real.shop, 'orders/create', payload);
    expect(await ordersOf(real.accountId)).toHaveLength(1);
  });
});

describe('when Shopify cannot answer, the receipt is held, not refused', () => {
  it.each([503, 'throttled'] as const)(
    'Admin API %s: stays received, then is processed once Shopify answers',
    async (failure) => {
      const { shop, accountId } = await connectedShop();
      const id = fakeShopifyId();
      fake.failGraphql(failure);
      const sent = await app.webhook(shop, 'orders/create', videoOrder(id), { expectProcessingError: true });
      expect(sent.processingError?.message).toMatch(/Shopify could not be reached to look up Shopify order/);
      const held = await receipt(sent.webhookId);
      expect(held.status).toBe('received');
      expect(held.error).toMatch(/Shopify could not be reached/);
      expect(await ordersOf(accountId)).toEqual([]);
      expect(await linksOf(id)).toEqual([]);

      // The job's retry (or the reconciler's hand-over) processes it again; Shopify answers now.
      await expect(app.shopify.processing.process(sent.webhookId)).resolves.toMatchObject({ status: 'processed' });
      expect(await receipt(sent.webhookId)).toMatchObject({ status: 'processed', error: null });
      expect(await ordersOf(accountId)).toHaveLength(1);
    },
  );

  it("a stored token that cannot be used (expired, no refresh token) holds the receipt until the merchant's next load", async () => {
    const shop = `binding-stale-${Date.now()}.myshopify.com`;
    const issued = fake.issueTokens(shop);
    const registered = await registerShop(db(), shop, {
      tokens: app.shopify.tokens.seal(shop, {
        accessToken: issued.access_token,
        accessTokenExpiresAt: new Date(Date.now() - 60_000),
        refreshToken: null,
        refreshTokenExpiresAt: null,
        scopes: issued.scope,
      }),
    });
    const id = fakeShopifyId();
    const sent = await app.webhook(shop, 'orders/create', videoOrder(id), { expectProcessingError: true });
    expect(await receipt(sent.webhookId)).toMatchObject({ status: 'received' });
    expect(await ordersOf(registered.shop.account_id)).toEqual([]);
    expect(lookUpsOf(id)).toEqual([]);
  });
});

describe('the Admin API is asked only when it matters', () => {
  it('a payload whose order_status_url is on the shop’s own myshopify host makes no call', async () => {
    const { shop, accountId } = await connectedShop();
    const id = fakeShopifyId();
    await app.webhook(
      shop,
      'orders/create',
      videoOrder(id, { order_status_url: `https://${shop}/1/orders/${id}/authenticate?key=k` }),
      { replay: true }, // the fake does not know the order: only the payload can say it is the shop's
    );
    expect(await ordersOf(accountId)).toHaveLength(1);
    expect(lookUpsOf(id)).toEqual([]);
  });

  it('an order with no video line items makes no call', async () => {
    const { shop } = await connectedShop();
    const id = fakeShopifyId();
    const sent = await app.webhook(
      shop,
      'orders/create',
      orderPayload({ id, lines: [{ id: id + 1, marker: false, title: 'Scented candle' }] }),
      { replay: true },
    );
    expect(await receipt(sent.webhookId)).toMatchObject({ status: 'processed' });
    expect(lookUpsOf(id)).toEqual([]);
  });

  it('a shop that never gave us a token (shops add, development) has nothing to ask: its header is believed', async () => {
    const shop = `binding-dev-${Date.now()}.myshopify.com`;
    const { accountId } = await app.addShop(shop);
    const id = fakeShopifyId();
    await app.webhook(shop, 'orders/create', videoOrder(id), { replay: true });
    expect(await ordersOf(accountId)).toHaveLength(1);
    expect(lookUpsOf(id)).toEqual([]);
  });
});

describe('bindingNeedsShopLookUp: the decision, apart from the look-up', () => {
  const link = (shop: string): LinkOfShopifyOrder => ({
    shop,
    line_item_id: '1',
    order_id: 'order',
    shopify_order_name: null,
    gift_line_item_ids: null,
    gift_quantities: null,
    gift_updated_at: null,
    notice: null,
  });
  const first = { headerShop: 'a.myshopify.com', body: { id: 1 }, links: [], videoLines: 1 };
  const at = (url: string) => ({ ...first, body: { id: 1, order_status_url: url } });

  it('asks for the first sight of a video order that does not name its shop', () => {
    expect(bindingNeedsShopLookUp(first)).toBe(true);
    expect(bindingNeedsShopLookUp(at('https://gifts.example.com/1/orders/x'))).toBe(true);
    expect(bindingNeedsShopLookUp(at('https://a.myshopify.com.evil.example/1/orders/x'))).toBe(true);
    expect(bindingNeedsShopLookUp(at('not a url'))).toBe(true);
  });

  it('does not ask without video lines, with links in this shop, or when the payload names the shop', () => {
    expect(bindingNeedsShopLookUp({ ...first, videoLines: 0 })).toBe(false);
    expect(bindingNeedsShopLookUp({ ...first, links: [link('a.myshopify.com')] })).toBe(false);
    expect(bindingNeedsShopLookUp(at('https://a.myshopify.com/1/orders/x/authenticate?key=k'))).toBe(false);
    expect(bindingNeedsShopLookUp(at('https://A.MyShopify.com/1/orders/x'))).toBe(false);
  });
});
