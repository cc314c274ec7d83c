import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeShopifyId, orderPayload, signedWebhook } from '../../src/shopify/dev/webhook-payloads.ts';
import { recordReceipt, UNKNOWN_SHOP_RECEIPTS } from '../../src/shopify/intake/webhooks.ts';
import { SECRET, startShopifyTestApp, type ShopifyTestApp } from './harness.ts';

/**
 * Issue 13 item 5: Shopify signs the body, not the X-Shopify-Shop-Domain header. A signed body from
 * one shop must not act on another: the header must be a real shop domain, must agree with every
 * shop identity in the payload, and one event is processed once whatever webhook id it comes under.
 */
let app: ShopifyTestApp;
let counter = 0;
const newShop = async () => {
  const shop = `trust-${Date.now()}-${counter++}.myshopify.com`;
  return { shop, ...(await app.addShop(shop)) };
};
const db = () => app.services.database.db;
const receipt = (webhookId: string) =>
  db().selectFrom('webhook_receipts').selectAll().where('webhook_id', '=', webhookId).executeTakeFirst();
const ordersOf = (accountId: string) =>
  db().selectFrom('orders').select(['id', 'name', 'deleted_at']).where('account_id', '=', accountId).execute();

beforeAll(async () => {
  app = await startShopifyTestApp();
});
afterAll(async () => {
  await app?.close();
});

describe('the shop header is checked against the payload', () => {
  it('shop/redact naming another shop in its payload erases nothing and is kept as failed', async () => {
    const victim = await newShop();
    const attacker = await newShop();
    await app.webhook(
      victim.shop,
      'orders/create',
      orderPayload({ id: fakeShopifyId(), lines: [{ id: 1, recipientEmail: 'bob@example.com' }] }),
    );
    const before = await ordersOf(victim.accountId);
    expect(before).toHaveLength(1);

    const sent = await app.webhook(
      attacker.shop,
      'shop/redact',
      { shop_id: 1, shop_domain: victim.shop },
      { expectProcessingError: true },
    );
    expect(sent.status).toBe(200);
    expect(sent.processingError?.message).toMatch(/shop_domain is not the/);
    expect(await receipt(sent.webhookId)).toMatchObject({ status: 'failed' });
    expect(await ordersOf(victim.accountId)).toEqual(before);
    expect(await db().selectFrom('shops').select('domain').where('domain', '=', victim.shop).execute()).toHaveLength(1);
  });

  it('customers/redact and customers/data_request must name the header shop too', async () => {
    const { shop } = await newShop();
    for (const topic of ['customers/redact', 'customers/data_request']) {
      const sent = await app.webhook(
        shop,
        topic,
        {
          shop_id: 1,
          shop_domain: 'someone-else.myshopify.com',
          customer: { id: 1, email: 'x@example.com' },
          orders_to_redact: [],
          orders_requested: [],
        },
        { expectProcessingError: true },
      );
      expect(sent.processingError?.message, topic).toMatch(/shop_domain is not the/);
    }
  });

  it("an orders/create captured from one shop and replayed under another's header (fresh webhook id) creates nothing", async () => {
    const first = await newShop();
    const second = await newShop();
    const payload = orderPayload({ id: fakeShopifyId(), lines: [{ id: 7, recipientEmail: 'bob@example.com' }] });
    await app.webhook(first.shop, 'orders/create', payload);
    expect(await ordersOf(first.accountId)).toHaveLength(1);

    // The same signed bytes, another shop's header, a new webhook id and event id.
    const replayed = await app.webhook(second.shop, 'orders/create', payload, { expectProcessingError: true });
    expect(replayed.processingError?.message).toMatch(/belongs to another shop/);
    expect(await receipt(replayed.webhookId)).toMatchObject({ status: 'failed' });
    expect(await ordersOf(second.accountId)).toEqual([]);
  });

  it('an order whose order_status_url is on another myshopify host is refused', async () => {
    const { shop, accountId } = await newShop();
    const payload = {
      ...(orderPayload({ id: fakeShopifyId(), lines: [{ id: 8, recipientEmail: 'bob@example.com' }] }) as object),
      order_status_url: 'https://another-store.myshopify.com/1234/orders/abc/authenticate?key=k',
    };
    const sent = await app.webhook(shop, 'orders/create', payload, { expectProcessingError: true });
    expect(sent.processingError?.message).toMatch(/order_status_url is on another-store\.myshopify\.com/);
    expect(await ordersOf(accountId)).toEqual([]);
  });

  it('its own order_status_url, or a custom storefront domain, is fine', async () => {
    const { shop, accountId } = await newShop();
    for (const [i, url] of [
      `https://${shop}/1/orders/a/authenticate?key=k`,
      'https://gifts.example.com/1/orders/b',
    ].entries()) {
      const payload = {
        ...(orderPayload({
          id: fakeShopifyId(),
          lines: [{ id: 20 + i, recipientEmail: 'bob@example.com' }],
        }) as object),
        order_status_url: url,
      };
      await app.webhook(shop, 'orders/create', payload);
    }
    expect(await ordersOf(accountId)).toHaveLength(2);
  });
});

describe('at the endpoint', () => {
  it.each(['evil.example.com', 'shop.myshopify.com.evil.com', 'UPPER CASE.myshopify.com', ''])(
    'a signed webhook for the shop domain "%s" is a 400, and nothing is stored',
    async (domain) => {
      const signed = signedWebhook(SECRET, domain, 'orders/create', { id: 1 });
      const response = await fetch(`${app.baseUrl}/shopify/webhooks`, {
        method: 'POST',
        headers: signed.headers,
        body: signed.body,
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { type: string } }).error.type).toBe('invalid_request');
      expect(await receipt(signed.webhookId)).toBeUndefined();
    },
  );

  it('one X-Shopify-Event-Id is stored once, even under a fresh webhook id', async () => {
    const { shop, accountId } = await newShop();
    const payload = orderPayload({ id: fakeShopifyId(), lines: [{ id: 9, recipientEmail: 'bob@example.com' }] });
    const first = await app.webhook(shop, 'orders/create', payload, { eventId: 'event-trust-1' });
    expect(first.body).toMatchObject({ duplicate: false });
    const again = await app.webhook(shop, 'orders/create', payload, { eventId: 'event-trust-1' });
    expect(again).toMatchObject({ status: 200, body: { received: true, duplicate: true } });
    expect(await receipt(again.webhookId)).toBeUndefined();
    expect(await ordersOf(accountId)).toHaveLength(1);
  });
});

describe('webhooks of shops that never installed', () => {
  it('are kept as failed, then forgotten after the retention and beyond the cap per shop', async () => {
    const stranger = `never-installed-${Date.now()}.myshopify.com`;
    const sent = [];
    for (let i = 0; i < 3; i++)
      sent.push(
        await app.webhook(stranger, 'orders/create', orderPayload({ id: fakeShopifyId(), lines: [{ id: i }] }), {
          expectProcessingError: true,
        }),
      );
    for (const one of sent) expect(await receipt(one.webhookId)).toMatchObject({ status: 'failed' });
    // One of them is older than the retention.
    const old = new Date(Date.now() - (UNKNOWN_SHOP_RECEIPTS.retentionDays + 1) * 86_400_000);
    await db()
      .updateTable('webhook_receipts')
      .set({ received_at: old })
      .where('webhook_id', '=', sent[0]!.webhookId)
      .execute();

    // A flood from a second unknown shop, past the cap.
    const flooder = `flooder-${Date.now()}.myshopify.com`;
    for (let i = 0; i < UNKNOWN_SHOP_RECEIPTS.perShop + 5; i++) {
      await recordReceipt(db(), {
        webhookId: `flood-${flooder}-${i}`,
        eventId: null,
        topic: 'orders/create',
        shop: flooder,
        apiVersion: '2026-07',
        triggeredAt: null,
        rawBody: '{}',
        receivedAt: new Date(),
      });
    }
    await db().updateTable('webhook_receipts').set({ status: 'failed' }).where('shop', '=', flooder).execute();
    // An installed shop's failed receipt is never pruned.
    const { shop } = await newShop();
    const own = await app.webhook(shop, 'orders/create', { not: 'an order' }, { expectProcessingError: true });
    await db()
      .updateTable('webhook_receipts')
      .set({ received_at: old })
      .where('webhook_id', '=', own.webhookId)
      .execute();

    await app.shopify.reconcile();

    expect(await receipt(sent[0]!.webhookId)).toBeUndefined();
    expect(await receipt(sent[1]!.webhookId)).toMatchObject({ status: 'failed' });
    expect(await receipt(sent[2]!.webhookId)).toMatchObject({ status: 'failed' });
    const flood = await db().selectFrom('webhook_receipts').select('webhook_id').where('shop', '=', flooder).execute();
    expect(flood).toHaveLength(UNKNOWN_SHOP_RECEIPTS.perShop);
    // The newest are the ones kept.
    expect(flood.map((r) => r.webhook_id)).toContain(`flood-${flooder}-${UNKNOWN_SHOP_RECEIPTS.perShop + 4}`);
    expect(flood.map((r) => r.webhook_id)).not.toContain(`flood-${flooder}-0`);
    expect(await receipt(own.webhookId)).toMatchObject({ status: 'failed' });
  });
});

describe('one order cannot fan out without limit', () => {
  it('takes the first 25 video lines (SHOPIFY_MAX_VIDEO_LINES_PER_ORDER) and refuses the rest on the receipt', async () => {
    const { shop, accountId } = await newShop();
    const lines = Array.from({ length: 30 }, (_, i) => ({ id: 1000 + i, recipientEmail: `r${i}@example.com` }));
    const shopifyOrderId = fakeShopifyId();
    const sent = await app.webhook(shop, 'orders/create', orderPayload({ id: shopifyOrderId, lines }));
    expect(await ordersOf(accountId)).toHaveLength(25);
    const kept = await receipt(sent.webhookId);
    expect(kept?.status).toBe('processed');
    const refused = kept?.note?.split('\n').filter((line) => line.includes('refused')) ?? [];
    expect(refused).toHaveLength(5);
    expect(refused[0]).toMatch(
      /the video line “Video gift message” \(26 of 30\): refused, the order has 30 video lines and at most 25/,
    );
    // orders/updated of the same order creates nothing more: the refused lines stay refused.
    await app.webhook(shop, 'orders/updated', orderPayload({ id: shopifyOrderId, lines }));
    expect(await ordersOf(accountId)).toHaveLength(25);
  });
});
