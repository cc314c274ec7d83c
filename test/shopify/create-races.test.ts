import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeShopifyId, orderPayload, signedWebhook } from '../../src/shopify/dev/webhook-payloads.ts';
import { SECRET, startShopifyTestApp, type ShopifyTestApp } from './harness.ts';

/**
 * Issue 11's processing cuts create a Shopify order's video order without reading its idempotency
 * key first (the key's insert conflict is the guard) and commit the link with the order. These are
 * the races that guard must win: orders/create and orders/updated of one order processed at the
 * same time, and a key whose link is missing (a link lost before links committed with orders).
 */
let app: ShopifyTestApp;
beforeAll(async () => {
  app = await startShopifyTestApp();
});
afterAll(async () => {
  await app?.close();
});

const db = () => app.services.database.db;

async function receive(shop: string, topic: string, payload: unknown): Promise<string> {
  const signed = signedWebhook(SECRET, shop, topic, payload);
  const response = await fetch(`${app.baseUrl}/shopify/webhooks`, {
    method: 'POST',
    headers: signed.headers,
    body: signed.body,
  });
  expect(response.status).toBe(200);
  return signed.webhookId;
}

/** What processing made for one Shopify order of a shop whose account holds nothing else. */
async function outcome(shop: { domain: string; accountId: string }, shopifyOrderId: number) {
  const links = await db()
    .selectFrom('shopify_order_links')
    .select('order_id')
    .where('shop', '=', shop.domain)
    .where('shopify_order_id', '=', String(shopifyOrderId))
    .execute();
  const orders = await db().selectFrom('orders').select('id').where('account_id', '=', shop.accountId).execute();
  const sends = await db().selectFrom('sends').select('kind').where('account_id', '=', shop.accountId).execute();
  return { links, orders, sends };
}

async function newShop(name: string) {
  const domain = `${name}-${Date.now()}.myshopify.com`;
  return { domain, accountId: (await app.addShop(domain)).accountId };
}

describe('creating a Shopify order’s video order', () => {
  it('makes one order, one link and one record-link e-mail when orders/create and orders/updated race', async () => {
    const shop = await newShop('race');
    const id = fakeShopifyId();
    const line = fakeShopifyId();
    const created = await receive(
      shop.domain,
      'orders/create',
      orderPayload({ id, lines: [{ id: line, recipientName: 'Bob', recipientEmail: 'bob@example.com' }] }),
    );
    // The update names the recipient differently: the same idempotency key with another body.
    const updated = await receive(
      shop.domain,
      'orders/updated',
      orderPayload({
        id,
        updatedAt: '2026-12-01T10:05:00-05:00',
        lines: [{ id: line, recipientName: 'Bobby', recipientEmail: 'bob@example.com' }],
      }),
    );
    await Promise.all([app.shopify.processing.process(created), app.shopify.processing.process(updated)]);

    const { links, orders, sends } = await outcome(shop, id);
    expect(links).toHaveLength(1);
    expect(orders).toHaveLength(1);
    expect(sends.filter((send) => send.kind === 'sender_record_link')).toHaveLength(1);
    const receipts = await db()
      .selectFrom('webhook_receipts')
      .select('status')
      .where('webhook_id', 'in', [created, updated])
      .execute();
    expect(receipts.map((receipt) => receipt.status)).toEqual(['processed', 'processed']);
  });

  it('answers from the key when the link is missing: the link is written again, no second order', async () => {
    const shop = await newShop('lost-link');
    const id = fakeShopifyId();
    const payload = orderPayload({
      id,
      lines: [{ id: fakeShopifyId(), recipientName: 'Bob', recipientEmail: 'bob@example.com' }],
    });
    await app.shopify.processing.process(await receive(shop.domain, 'orders/create', payload));
    const before = await outcome(shop, id);
    expect(before.links).toHaveLength(1);
    await db().deleteFrom('shopify_order_links').where('shop', '=', shop.domain).execute();

    await app.shopify.processing.process(await receive(shop.domain, 'orders/updated', payload));
    const after = await outcome(shop, id);
    expect(after.links).toEqual(before.links);
    expect(after.orders).toHaveLength(1);
    expect(after.sends.filter((send) => send.kind === 'sender_record_link')).toHaveLength(1);
  });
});
