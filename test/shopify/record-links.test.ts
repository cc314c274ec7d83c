import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeShopifyId, orderPayload, type GiftLine } from '../../src/shopify/dev/webhook-payloads.ts';
import { GUEST_LINK_WINDOW_MS } from '../../src/shopify/orders/record-links.ts';
import { TestClock } from '../support/clock.ts';
import { API_KEY, SECRET, startShopifyTestApp, type ShopifyTestApp } from './harness.ts';

const clock = new TestClock();
let app: ShopifyTestApp;
beforeAll(async () => {
  app = await startShopifyTestApp({ now: clock.now });
});
afterAll(async () => {
  await app.close();
});

const CUSTOMER_ID = 7_000_000_123;

/**
 * A session token as a checkout / customer-account UI extension gets it from `shopify.sessionToken.get()`:
 * HS256 with the app's secret, `dest` the bare shop domain, no `iss`, `sub` only for a logged-in buyer.
 * jose checks `exp`/`nbf` against the real clock, not the app's test clock.
 */
function extensionToken(
  shop: string,
  claims: { sub?: string; aud?: string; exp?: number; nbf?: number } = {},
  secret = SECRET,
): string {
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const payload = { dest: shop, aud: API_KEY, exp: now + 300, nbf: now, iat: now, jti: randomUUID(), ...claims };
  const unsigned = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(payload)}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

async function recordLinks(
  orderId: string,
  token: string | null,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests inspect JSON
): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(
    `${app.baseUrl}/shopify/extension/record-links?order_id=${encodeURIComponent(orderId)}`,
    {
      headers: {
        Origin: 'https://extensions.shopifycdn.com',
        ...(token === null ? {} : { Authorization: `Bearer ${token}` }),
      },
    },
  );
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

let shopCounter = 0;
async function newShop(): Promise<string> {
  const shop = `checkout-${Date.now()}-${shopCounter++}.myshopify.com`;
  await app.addShop(shop);
  return shop;
}

/** A Shopify order with gift lines, through a signed orders/create webhook; returns its id and video orders. */
async function placeOrder(shop: string, lines: GiftLine[]) {
  const id = fakeShopifyId();
  const payload = orderPayload({ id, lines, customerId: CUSTOMER_ID });
  expect((await app.webhook(shop, 'orders/create', payload)).status).toBe(200);
  const rows = await app.services.database.db
    .selectFrom('shopify_order_links')
    .innerJoin('orders', 'orders.id', 'shopify_order_links.order_id')
    .select(['orders.id', 'orders.uuid', 'orders.recipient_name'])
    .where('shopify_order_links.shop', '=', shop)
    .where('shopify_order_links.shopify_order_id', '=', String(id))
    .orderBy('shopify_order_links.line_item_id')
    .execute();
  // In the endpoint's order (by line item), and by recipient name.
  return { shopifyOrderId: String(id), orders: rows, byName: new Map(rows.map((row) => [row.recipient_name, row])) };
}

const gift = (recipientName: string): GiftLine => ({
  id: fakeShopifyId(),
  recipientName,
  recipientEmail: `${recipientName.toLowerCase()}@example.com`,
});
const customerSub = `gid://shopify/Customer/${CUSTOMER_ID}`;

describe('GET /shopify/extension/record-links', () => {
  it('answers pending before the orders/create webhook, then the record link of each video message', async () => {
    const shop = await newShop();
    const lines = [gift('Bob'), gift('Carol')];
    const upcoming = String(fakeShopifyId());
    const before = await recordLinks(
      `gid://shopify/OrderIdentity/${upcoming}`,
      extensionToken(shop, { sub: customerSub }),
    );
    expect(before).toMatchObject({ status: 200, body: { status: 'pending' } });
    expect(before.headers.get('access-control-allow-origin')).toBe('*');

    const placed = await placeOrder(shop, lines);
    expect(placed.orders).toHaveLength(2);
    const expected = {
      status: 'ready',
      messages: placed.orders.map((order) => ({
        recipient_name: order.recipient_name,
        record_url: `https://doorstep.test/record/${order.uuid}`,
        recorded: false,
      })),
    };
    expect(expected.messages.map((m) => m.recipient_name).sort()).toEqual(['Bob', 'Carol']);
    const token = extensionToken(shop, { sub: customerSub });
    // The thank-you page knows the order as an OrderIdentity gid, the order-status page as an Order gid.
    for (const orderId of [
      `gid://shopify/OrderIdentity/${placed.shopifyOrderId}`,
      `gid://shopify/Order/${placed.shopifyOrderId}`,
      placed.shopifyOrderId,
    ]) {
      const answer = await recordLinks(orderId, token);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual(expected);
      expect(answer.headers.get('access-control-allow-origin')).toBe('*');
      expect(answer.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('says recorded once the video is in, and leaves out a cancelled video order', async () => {
    const shop = await newShop();
    const placed = await placeOrder(shop, [gift('Bob'), gift('Carol'), gift('Dan')]);
    const bob = placed.byName.get('Bob')!;
    const dan = placed.byName.get('Dan')!;
    await app.services.orders.markRecorded(bob.id, { durationTenths: 42 });
    await app.services.orders.cancel(dan.id, 'api', 'test: the merchant cancelled this gift');

    const answer = await recordLinks(placed.shopifyOrderId, extensionToken(shop, { sub: customerSub }));
    expect(answer.body).toEqual({
      status: 'ready',
      messages: placed.orders
        .filter((order) => order.id !== dan.id)
        .map((order) => ({
          recipient_name: order.recipient_name,
          record_url: `https://doorstep.test/record/${order.uuid}`,
          recorded: order.id === bob.id,
        })),
    });
    expect(answer.body.messages).toHaveLength(2);
  });

  it('refuses a missing, forged, foreign or expired token with 401 (and CORS headers, so the extension can read it)', async () => {
    const shop = await newShop();
    const placed = await placeOrder(shop, [gift('Bob')]);
    const now = Math.floor(Date.now() / 1000);
    const refused = {
      missing: null,
      'not a JWT': 'not-a-jwt',
      'another secret': extensionToken(shop, { sub: customerSub }, 'another-apps-secret'),
      'another app (aud)': extensionToken(shop, { sub: customerSub, aud: 'another-apps-key' }),
      expired: extensionToken(shop, { sub: customerSub, exp: now - 60, nbf: now - 360 }),
      'not yet valid': extensionToken(shop, { sub: customerSub, nbf: now + 120 }),
      'dest not a shop': extensionToken('example.com', { sub: customerSub }),
      'sub not a customer': extensionToken(shop, { sub: 'gid://shopify/StaffMember/1' }),
    };
    for (const [why, token] of Object.entries(refused)) {
      const answer = await recordLinks(placed.shopifyOrderId, token);
      expect({ why, status: answer.status, type: answer.body?.error?.type }).toEqual({
        why,
        status: 401,
        type: 'unauthorized',
      });
      expect(answer.headers.get('access-control-allow-origin')).toBe('*');
      expect(JSON.stringify(answer.body)).not.toContain('Bob');
    }
  });

  it('answers 400 for a missing or malformed order id', async () => {
    const shop = await newShop();
    const token = extensionToken(shop);
    for (const query of [
      '',
      '?order_id=',
      '?order_id=abc',
      '?order_id=gid%3A%2F%2Fshopify%2FProduct%2F1',
      '?order_id=1&order_id=2',
    ]) {
      const response = await fetch(`${app.baseUrl}/shopify/extension/record-links${query}`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      const body = (await response.json()) as { error?: { type?: string } };
      expect({ query, status: response.status, type: body.error?.type }).toEqual({
        query,
        status: 400,
        type: 'invalid_request',
      });
    }
  });

  it("shows a logged-in customer only their own orders: another customer's token gets nothing", async () => {
    const shop = await newShop();
    const placed = await placeOrder(shop, [gift('Bob')]);
    const stranger = await recordLinks(
      placed.shopifyOrderId,
      extensionToken(shop, { sub: 'gid://shopify/Customer/1' }),
    );
    expect(stranger.body).toEqual({ status: 'pending' });
    // The same order id asked from another shop's checkout: links belong to their shop.
    const otherShop = await newShop();
    const elsewhere = await recordLinks(placed.shopifyOrderId, extensionToken(otherShop, { sub: customerSub }));
    expect(elsewhere.body).toEqual({ status: 'pending' });
    // The owner, named by a plain numeric sub as well as by the gid.
    const owner = await recordLinks(placed.shopifyOrderId, extensionToken(shop, { sub: String(CUSTOMER_ID) }));
    expect(owner.body).toMatchObject({ status: 'ready', messages: [{ recipient_name: 'Bob' }] });
  });

  it('answers a guest (no sub) for two hours after the order was linked, then no more', async () => {
    const shop = await newShop();
    const placed = await placeOrder(shop, [gift('Bob')]);
    const guest = () => recordLinks(placed.shopifyOrderId, extensionToken(shop));
    expect((await guest()).body).toMatchObject({ status: 'ready', messages: [{ recipient_name: 'Bob' }] });
    clock.advance(GUEST_LINK_WINDOW_MS);
    expect((await guest()).body).toMatchObject({ status: 'ready', messages: [{ recipient_name: 'Bob' }] });
    clock.advance(1_000);
    expect((await guest()).body).toEqual({ status: 'pending' });
    // The owner, logged in, still sees it.
    const owner = await recordLinks(placed.shopifyOrderId, extensionToken(shop, { sub: customerSub }));
    expect(owner.body).toMatchObject({ status: 'ready', messages: [{ recipient_name: 'Bob' }] });
  });

  it('answers the CORS preflight for any origin, allowing the Authorization header', async () => {
    const response = await fetch(`${app.baseUrl}/shopify/extension/record-links?order_id=1`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://cdn.shopify.com',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'authorization',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-headers')).toBe('Authorization');
    expect(response.headers.get('access-control-allow-methods')).toContain('GET');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
  });
});
