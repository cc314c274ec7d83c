import { shopifyAdminCommands } from '../../src/shopify/admin/commands.ts';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fakeShopifyId,
  type GiftLine,
  fulfillmentPayload,
  orderPayload,
  randomUpsTrackingNumber,
} from '../../src/shopify/dev/webhook-payloads.ts';
import { updateShopSettings } from '../../src/shopify/shops.ts';
import {
  getJson,
  replayEveryWebhook,
  sendFulfillmentCreated,
  sendFulfillmentEvent,
  startShopifyTestApp,
  type ShopifyTestApp,
} from './harness.ts';

// Dates in these payloads lie in the past: a delivery dated after now is recorded as delivered now
// (OrderService.markDelivered), so a future date would not be the delivered_at a test expects.
let app: ShopifyTestApp;
beforeAll(async () => {
  app = await startShopifyTestApp();
});
afterAll(async () => {
  await app.close();
});

let shopCounter = 0;
async function newShop() {
  const shop = `store-${Date.now()}-${shopCounter++}.myshopify.com`;
  const { accountId, auth } = await app.addShop(shop);
  return { shop, accountId, auth };
}

const db = () => app.services.database.db;
const receipt = (webhookId: string) =>
  db().selectFrom('webhook_receipts').selectAll().where('webhook_id', '=', webhookId).executeTakeFirst();
// Ordered by the primary key, so two reads of the same links compare equal (SQL promises no order without it).
const links = (shop: string, orderId: number | string) =>
  db()
    .selectFrom('shopify_order_links')
    .selectAll()
    .where('shop', '=', shop)
    .where('shopify_order_id', '=', String(orderId))
    .orderBy('line_item_id')
    .execute();
const order = (id: string) => db().selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const events = (id: string) =>
  db().selectFrom('order_events').select(['type', 'source', 'data']).where('order_id', '=', id).orderBy('id').execute();

async function placeOrder(
  shop: string,
  lines: GiftLine[] = [{ id: fakeShopifyId(), recipientName: 'Bob', recipientEmail: 'bob@example.com' }],
) {
  const id = fakeShopifyId();
  const result = await app.webhook(shop, 'orders/create', orderPayload({ id, lines }));
  expect(result.status).toBe(200);
  // Each line item's video order, in the order of the lines (not the order the rows come back in).
  const orderOf = new Map((await links(shop, id)).map((r) => [r.line_item_id, r.order_id]));
  return {
    shopifyOrderId: id,
    lineItemIds: lines.map((l) => l.id),
    orderIds: lines.flatMap((l) => orderOf.get(String(l.id)) ?? []),
  };
}

/** Sends fulfillments/create for those line items, last updated on 2 December (a fresh fulfillment id unless given). */
const fulfill = (shop: string, fulfillment: Parameters<typeof sendFulfillmentCreated>[2]) =>
  sendFulfillmentCreated(app, shop, { updatedAt: '2026-10-02T10:00:00Z', ...fulfillment });

describe('POST /shopify/webhooks', () => {
  it('rejects a tampered body or a wrong secret with 401 and stores nothing', async () => {
    const { shop } = await newShop();
    const payload = orderPayload({ id: fakeShopifyId(), lines: [{ id: 1, recipientEmail: 'bob@example.com' }] });
    const wrongSecret = await app.webhook(shop, 'orders/create', payload, { secret: 'not-the-secret' });
    expect(wrongSecret.status).toBe(401);
    expect(await receipt(wrongSecret.webhookId)).toBeUndefined();

    // Signed over one body, sent with another (re-serialized JSON never verifies either).
    const { signedWebhook } = await import('../../src/shopify/dev/webhook-payloads.ts');
    const signed = signedWebhook('test-shopify-secret', shop, 'orders/create', payload);
    const response = await fetch(`${app.baseUrl}/shopify/webhooks`, {
      method: 'POST',
      headers: signed.headers,
      body: JSON.stringify(payload, null, 1),
    });
    expect(response.status).toBe(401);
    expect(await receipt(signed.webhookId)).toBeUndefined();
  });

  it('processes a duplicate X-Shopify-Webhook-Id once', async () => {
    const { shop } = await newShop();
    const id = fakeShopifyId();
    const payload = orderPayload({ id, lines: [{ id: fakeShopifyId(), recipientEmail: 'bob@example.com' }] });
    const first = await app.webhook(shop, 'orders/create', payload);
    const again = await app.webhook(shop, 'orders/create', payload, { webhookId: first.webhookId });
    expect(again).toMatchObject({ status: 200, body: { received: true, duplicate: true } });
    expect((await receipt(first.webhookId))?.status).toBe('processed');
    expect(await links(shop, id)).toHaveLength(1);
    // The operator's list writes its times as the API does, in whole seconds (billing probe).
    const listed = (await shopifyAdminCommands(db(), app.shopify, app.baseUrl, undefined)['webhooks.list'](
      {},
    )) as Array<{
      webhook_id: string;
      received_at: string;
      processed_at: string | null;
    }>;
    const row = listed.find((entry) => entry.webhook_id === first.webhookId)!;
    expect(row.received_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(row.processed_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });

  it('keeps the payload of an unknown shop as failed, and a replay after `shops add` processes it', async () => {
    const shop = `unknown-${Date.now()}.myshopify.com`;
    const id = fakeShopifyId();
    const sent = await app.webhook(
      shop,
      'orders/create',
      orderPayload({ id, lines: [{ id: fakeShopifyId(), recipientEmail: 'bob@example.com' }] }),
      { expectProcessingError: true },
    );
    expect(sent.status).toBe(200);
    expect(sent.processingError?.message).toContain('has not installed Doorstep');
    expect(await receipt(sent.webhookId)).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('shops add'),
    });
    await app.addShop(shop);
    await app.shopify.processing.process(sent.webhookId, { replay: true });
    expect(await receipt(sent.webhookId)).toMatchObject({ status: 'processed', error: null });
    expect(await links(shop, id)).toHaveLength(1);
  });
});

describe('orders/create', () => {
  it('creates one video order per video line item, with the sender, recipient and paid price', async () => {
    const { shop, auth } = await newShop();
    const lines = [
      { id: fakeShopifyId(), recipientName: 'Bob', recipientEmail: 'bob@example.com', price: '15.00' },
      { id: fakeShopifyId(), marker: false },
      {
        id: fakeShopifyId(),
        recipientName: 'Cy',
        recipientPhone: '+14155550199',
        sendTrigger: 'now',
        price: '9.99',
        quantity: 2,
      },
    ];
    const { orderIds } = await placeOrder(shop, lines);
    expect(orderIds).toHaveLength(2);
    const first = await getJson(app.baseUrl, `/v1/orders/${orderIds[0]}`, auth);
    expect(first.body).toMatchObject({
      name: 'Ann Sender',
      email: 'ann.sender@example.com',
      recipient_name: 'Bob',
      recipient_email: 'bob@example.com',
      send_trigger: 'package',
      price: 1500,
      status: 'created',
    });
    const second = await getJson(app.baseUrl, `/v1/orders/${orderIds[1]}`, auth);
    expect(second.body).toMatchObject({
      recipient_name: 'Cy',
      recipient_phone: '+14155550199',
      send_method: 'sms',
      send_trigger: 'now',
      price: 1998,
    });
    expect((await events(orderIds[0]!))[0]).toMatchObject({ type: 'order.created', source: 'shopify' });
  });

  it('prices again an unsent video line an edit or a refund took part of (Shopify probe)', async () => {
    const { shop, auth } = await newShop();
    const line = { id: fakeShopifyId(), recipientEmail: 'bob@example.com', price: '20.00', quantity: 2 };
    const { shopifyOrderId, orderIds } = await placeOrder(shop, [line]);
    expect((await getJson(app.baseUrl, `/v1/orders/${orderIds[0]}`, auth)).body.price).toBe(4000);
    const updated = (currentQuantity: number, updatedAt: string) =>
      app.webhook(
        shop,
        'orders/updated',
        orderPayload({ id: shopifyOrderId, lines: [{ ...line, currentQuantity }], updatedAt }),
      );
    expect((await updated(1, '2026-12-02T10:00:00Z')).status).toBe(200);
    expect((await getJson(app.baseUrl, `/v1/orders/${orderIds[0]}`, auth)).body.price).toBe(2000);
    const changed = (await events(orderIds[0]!)).filter((event) => event.type === 'order.updated');
    expect(changed.at(-1)).toMatchObject({ source: 'shopify', data: { price: { from: 4000, to: 2000 } } });
    // An older version processed late does not put the price back.
    expect((await updated(2, '2026-12-01T12:00:00Z')).status).toBe(200);
    expect((await getJson(app.baseUrl, `/v1/orders/${orderIds[0]}`, auth)).body.price).toBe(2000);
  });

  it('keeps 64-bit Shopify ids exact', async () => {
    const { shop } = await newShop();
    const big = '9223372036854775807';
    const raw = JSON.stringify(orderPayload({ id: 1, lines: [{ id: 2, recipientEmail: 'bob@example.com' }] }))
      .replace('"id":1,', `"id":${big},`)
      .replace('"id":2,', `"id":${big.slice(0, -1)}6,`);
    await app.webhook(shop, 'orders/create', null, { rawBody: raw });
    const rows = await links(shop, big);
    expect(rows.map((r) => r.line_item_id)).toEqual(['9223372036854775806']);
  });

  it('notes a line item that cannot become a video order on the receipt', async () => {
    const { shop } = await newShop();
    const sent = await app.webhook(
      shop,
      'orders/create',
      orderPayload({
        id: fakeShopifyId(),
        lines: [{ id: fakeShopifyId(), recipientEmail: 'bob@example.com', sendTrigger: 'date' }],
      }),
    );
    expect(await receipt(sent.webhookId)).toMatchObject({
      status: 'processed',
      note: expect.stringContaining('has no "Send on" property'),
    });
  });
});

describe('fulfillments', () => {
  it('gives the video order its carrier and tracking number through the same update as PUT', async () => {
    const { shop } = await newShop();
    const { shopifyOrderId, lineItemIds, orderIds } = await placeOrder(shop);
    const number = randomUpsTrackingNumber();
    await fulfill(shop, {
      orderId: shopifyOrderId,
      lineItemIds,
      trackingCompany: 'United Parcel Service',
      trackingNumber: number,
    });
    expect(await order(orderIds[0]!)).toMatchObject({ carrier: 'ups', tracking_number: number });
    expect((await events(orderIds[0]!)).some((e) => e.type === 'shipment.set' && e.source === 'shopify')).toBe(true);
  });

  it('ignores a fulfillment without gift items', async () => {
    const { shop } = await newShop();
    const { shopifyOrderId, orderIds } = await placeOrder(shop);
    await fulfill(shop, {
      orderId: shopifyOrderId,
      lineItemIds: [123],
      trackingCompany: 'UPS',
      trackingNumber: randomUpsTrackingNumber(),
    });
    expect(await order(orderIds[0]!)).toMatchObject({ carrier: null, tracking_number: null });
  });

  it("maps the shop's own carrier name, and detects the carrier from the number", async () => {
    const { shop } = await newShop();
    await updateShopSettings(db(), shop, { carrier_aliases: { 'Royal Mail Tracked': 'usps' } }, new Date());
    const a = await placeOrder(shop);
    await fulfill(shop, {
      orderId: a.shopifyOrderId,
      lineItemIds: a.lineItemIds,
      trackingCompany: 'ROYAL MAIL TRACKED',
      trackingNumber: '9400111899223817240935',
    });
    expect(await order(a.orderIds[0]!)).toMatchObject({ carrier: 'usps' });
    const b = await placeOrder(shop);
    await fulfill(shop, {
      orderId: b.shopifyOrderId,
      lineItemIds: b.lineItemIds,
      trackingCompany: 'Other',
      trackingNumber: '986578788855',
    });
    expect(await order(b.orderIds[0]!)).toMatchObject({ carrier: 'fedex', tracking_number: '986578788855' });
  });

  it('applies a later tracking change, and ignores a stale (older) update that arrives after it', async () => {
    const { shop } = await newShop();
    const { shopifyOrderId, lineItemIds, orderIds } = await placeOrder(shop);
    const fulfillmentId = fakeShopifyId();
    const [oldNumber, newNumber] = [randomUpsTrackingNumber(), randomUpsTrackingNumber()];
    const version = (trackingNumber: string, updatedAt: string) =>
      fulfillmentPayload({
        id: fulfillmentId,
        orderId: shopifyOrderId,
        lineItemIds,
        trackingCompany: 'UPS',
        trackingNumber,
        updatedAt,
      });
    await app.webhook(shop, 'fulfillments/update', version(newNumber, '2026-10-02T12:00:00Z'));
    const stale = await app.webhook(shop, 'fulfillments/create', version(oldNumber, '2026-10-02T10:00:00Z'));
    expect(await order(orderIds[0]!)).toMatchObject({ tracking_number: newNumber });
    expect((await receipt(stale.webhookId))?.note).toContain('stale');
    const newest = randomUpsTrackingNumber();
    await app.webhook(shop, 'fulfillments/update', version(newest, '2026-10-02T13:00:00Z'));
    expect(await order(orderIds[0]!)).toMatchObject({ tracking_number: newest });
  });

  it('takes a tracking number added in the same second as the fulfillment, whichever arrives first (Shopify probe: dropped as stale)', async () => {
    const { shop } = await newShop();
    for (const numberFirst of [false, true]) {
      const { shopifyOrderId, lineItemIds, orderIds } = await placeOrder(shop);
      const fulfillmentId = fakeShopifyId();
      const number = randomUpsTrackingNumber();
      // Shopify's updated_at has one-second precision: a shipping app's create and its update share it.
      const version = (trackingNumber: string | null) =>
        fulfillmentPayload({
          id: fulfillmentId,
          orderId: shopifyOrderId,
          lineItemIds,
          trackingCompany: trackingNumber ? 'UPS' : null,
          trackingNumber,
          updatedAt: '2026-10-02T18:29:51-00:00',
        });
      const [first, second] = numberFirst
        ? ([
            ['fulfillments/update', version(number)],
            ['fulfillments/create', version(null)],
          ] as const)
        : ([
            ['fulfillments/create', version(null)],
            ['fulfillments/update', version(number)],
          ] as const);
      await app.webhook(shop, first[0], first[1]);
      await app.webhook(shop, second[0], second[1]);
      expect(await order(orderIds[0]!), `number first: ${numberFirst}`).toMatchObject({
        carrier: 'ups',
        tracking_number: number,
      });
    }
  });

  it("stops tracking a cancelled fulfillment's number and says the order waits for a new one (probe finding)", async () => {
    const { shop } = await newShop();
    const { shopifyOrderId, lineItemIds, orderIds } = await placeOrder(shop);
    const fulfillmentId = fakeShopifyId();
    const number = randomUpsTrackingNumber();
    const version = (status: string, updatedAt: string) =>
      fulfillmentPayload({
        id: fulfillmentId,
        orderId: shopifyOrderId,
        lineItemIds,
        trackingCompany: 'UPS',
        trackingNumber: number,
        status,
        updatedAt,
      });
    await app.webhook(shop, 'fulfillments/create', version('success', '2026-10-02T10:00:00Z'));
    expect(await order(orderIds[0]!)).toMatchObject({ carrier: 'ups', tracking_number: number });
    const cancelled = await app.webhook(shop, 'fulfillments/update', version('cancelled', '2026-10-02T11:00:00Z'));
    expect(cancelled.status).toBe(200);
    expect(await order(orderIds[0]!)).toMatchObject({ carrier: null, tracking_number: null, status: 'created' });
    expect((await events(orderIds[0]!)).filter((e) => e.type === 'delivery.awaiting_shipment')).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({ reason: expect.stringContaining('cancelled in Shopify') }),
      }),
    ]);
  });

  it('applies fulfillments that arrive before their order', async () => {
    const { shop } = await newShop();
    const id = fakeShopifyId();
    const lineItemId = fakeShopifyId();
    const number = randomUpsTrackingNumber();
    await fulfill(shop, { orderId: id, lineItemIds: [lineItemId], trackingCompany: 'UPS', trackingNumber: number });
    await app.webhook(
      shop,
      'orders/create',
      orderPayload({ id, lines: [{ id: lineItemId, recipientEmail: 'bob@example.com' }] }),
    );
    const [link] = await links(shop, id);
    expect(await order(link!.order_id)).toMatchObject({ carrier: 'ups', tracking_number: number });
  });
});

describe("Shopify's delivered status (custom shipment tracking)", () => {
  it('delivers a Canada Post order on shipment_status: delivered, after saying why it waits on Shopify', async () => {
    const { shop } = await newShop();
    const { shopifyOrderId, lineItemIds, orderIds } = await placeOrder(shop);
    const fulfillment = (over: { shipmentStatus?: string; updatedAt: string }) =>
      fulfillmentPayload({
        id: 4242,
        orderId: shopifyOrderId,
        lineItemIds,
        trackingCompany: 'Canada Post',
        trackingNumber: '7023210039414604',
        createdAt: '2026-10-02T09:00:00Z',
        ...over,
      });
    await app.webhook(shop, 'fulfillments/create', fulfillment({ updatedAt: '2026-10-02T09:00:00Z' }));
    expect(await order(orderIds[0]!)).toMatchObject({ carrier: null, status: 'created' });
    expect((await events(orderIds[0]!)).find((e) => e.type === 'delivery.via_shopify')?.data).toMatchObject({
      reason: expect.stringContaining('Canada Post'),
    });

    await app.webhook(
      shop,
      'fulfillments/update',
      fulfillment({ shipmentStatus: 'delivered', updatedAt: '2026-10-04T15:30:00Z' }),
    );
    expect(await order(orderIds[0]!)).toMatchObject({
      status: 'delivered',
      delivered: true,
      delivered_at: new Date('2026-10-04T15:30:00Z'),
    });
    expect((await events(orderIds[0]!)).filter((e) => e.type === 'order.delivered')).toEqual([
      expect.objectContaining({ source: 'shopify' }),
    ]);
  });

  it('delivers on fulfillment_events/create delivered, even when the event comes first', async () => {
    const { shop } = await newShop();
    const { shopifyOrderId, lineItemIds, orderIds } = await placeOrder(shop);
    const fulfillmentId = fakeShopifyId();
    await sendFulfillmentEvent(app, shop, {
      fulfillmentId,
      orderId: shopifyOrderId,
      status: 'delivered',
      happenedAt: '2026-10-05T11:00:00Z',
    });
    expect(await order(orderIds[0]!)).toMatchObject({ status: 'created' });
    await app.webhook(
      shop,
      'fulfillments/create',
      fulfillmentPayload({
        id: fulfillmentId,
        orderId: shopifyOrderId,
        lineItemIds,
        trackingCompany: 'DHL Express',
        trackingNumber: 'JD0001',
        updatedAt: '2026-10-03T10:00:00Z',
      }),
    );
    expect(await order(orderIds[0]!)).toMatchObject({
      status: 'delivered',
      delivered_at: new Date('2026-10-05T11:00:00Z'),
    });
  });

  it('with the fallback switched off, gives a visible reason and never delivers on Shopify’s word', async () => {
    const { shop } = await newShop();
    await updateShopSettings(db(), shop, { fallback_delivered: false }, new Date());
    const { shopifyOrderId, lineItemIds, orderIds } = await placeOrder(shop);
    await app.webhook(
      shop,
      'fulfillments/create',
      fulfillmentPayload({
        id: 77,
        orderId: shopifyOrderId,
        lineItemIds,
        trackingCompany: 'Canada Post',
        trackingNumber: 'CP1',
        shipmentStatus: 'delivered',
        updatedAt: '2026-10-04T10:00:00Z',
      }),
    );
    expect(await order(orderIds[0]!)).toMatchObject({ status: 'created' });
    expect((await events(orderIds[0]!)).some((e) => e.type === 'delivery.blocked')).toBe(true);
  });

  it('several packages: the video goes only when the last gift package is delivered', async () => {
    const { shop } = await newShop();
    const { shopifyOrderId, lineItemIds, orderIds } = await placeOrder(shop);
    const [n1, n2] = [randomUpsTrackingNumber(), randomUpsTrackingNumber()];
    const pkg = (
      id: number,
      number: string,
      createdAt: string,
      over: { shipmentStatus?: string; updatedAt?: string } = {},
    ) =>
      fulfillmentPayload({
        id,
        orderId: shopifyOrderId,
        lineItemIds,
        trackingCompany: 'UPS',
        trackingNumber: number,
        createdAt,
        updatedAt: over.updatedAt ?? createdAt,
        ...(over.shipmentStatus ? { shipmentStatus: over.shipmentStatus } : {}),
      });
    await app.webhook(shop, 'fulfillments/create', pkg(1, n1, '2026-10-02T09:00:00Z'));
    await app.webhook(shop, 'fulfillments/create', pkg(2, n2, '2026-10-03T09:00:00Z'));
    expect(await order(orderIds[0]!)).toMatchObject({ tracking_number: n2 });
    // The later package arrives first: tracking moves to the one still out; nothing is sent yet.
    await app.webhook(
      shop,
      'fulfillments/update',
      pkg(2, n2, '2026-10-03T09:00:00Z', { shipmentStatus: 'delivered', updatedAt: '2026-10-04T09:00:00Z' }),
    );
    expect(await order(orderIds[0]!)).toMatchObject({ status: 'created', tracking_number: n1 });
    await app.webhook(
      shop,
      'fulfillments/update',
      pkg(1, n1, '2026-10-02T09:00:00Z', { shipmentStatus: 'delivered', updatedAt: '2026-10-05T09:00:00Z' }),
    );
    expect(await order(orderIds[0]!)).toMatchObject({
      status: 'delivered',
      delivered_at: new Date('2026-10-05T09:00:00Z'),
    });
  });

  it('a stale or duplicate delivery never moves a delivered order', async () => {
    const { shop } = await newShop();
    const { shopifyOrderId, lineItemIds, orderIds } = await placeOrder(shop);
    const delivered = fulfillmentPayload({
      id: 5,
      orderId: shopifyOrderId,
      lineItemIds,
      trackingCompany: 'Hermes',
      trackingNumber: 'H1',
      shipmentStatus: 'delivered',
      updatedAt: '2026-10-04T10:00:00Z',
    });
    await app.webhook(shop, 'fulfillments/update', delivered);
    const before = await events(orderIds[0]!);
    await app.webhook(shop, 'fulfillments/update', delivered);
    await app.webhook(shop, 'fulfillments/update', {
      ...delivered,
      shipment_status: 'in_transit',
      tracking_number: 'H2',
      tracking_numbers: ['H2'],
      updated_at: '2026-10-03T10:00:00Z',
    });
    await app.webhook(shop, 'fulfillments/update', {
      ...delivered,
      shipment_status: 'in_transit',
      tracking_company: 'UPS',
      tracking_number: randomUpsTrackingNumber(),
      tracking_numbers: [],
      updated_at: '2026-10-06T10:00:00Z',
    });
    expect(await order(orderIds[0]!)).toMatchObject({ status: 'delivered', carrier: null });
    expect(await events(orderIds[0]!)).toEqual(before);
  });
});

describe('orders/cancelled and app/uninstalled', () => {
  it('cancels the video orders of a cancelled Shopify order (tracking and pending send stop)', async () => {
    const { shop } = await newShop();
    const { shopifyOrderId, lineItemIds, orderIds } = await placeOrder(shop);
    await fulfill(shop, {
      orderId: shopifyOrderId,
      lineItemIds,
      trackingCompany: 'UPS',
      trackingNumber: randomUpsTrackingNumber(),
    });
    await app.webhook(shop, 'orders/cancelled', {
      ...orderPayload({ id: shopifyOrderId, lines: [] }),
      cancelled_at: '2026-10-02T11:00:00Z',
    });
    expect(await order(orderIds[0]!)).toMatchObject({ status: 'cancelled' });
    const tracking = await db()
      .selectFrom('trackings')
      .selectAll()
      .where('order_id', '=', orderIds[0]!)
      .executeTakeFirst();
    expect(tracking?.next_poll_at ?? null).toBeNull();
  });

  it('makes no video order when the cancellation is processed before the order (probe finding: it made a live one)', async () => {
    const { shop } = await newShop();
    const id = fakeShopifyId();
    const payload = orderPayload({ id, lines: [{ id: fakeShopifyId(), recipientEmail: 'bob@example.com' }] });
    const cancelled = await app.webhook(shop, 'orders/cancelled', { ...payload, cancelled_at: '2026-10-02T11:00:00Z' });
    expect((await receipt(cancelled.webhookId))?.note).toContain('the cancellation is kept');
    const created = await app.webhook(shop, 'orders/create', payload);
    expect(created.status).toBe(200);
    expect(await links(shop, id)).toEqual([]);
    expect((await receipt(created.webhookId))?.note).toContain('cancelled before Doorstep saw it');
    // Another shop's order of the same id is its own.
    const { shop: other } = await newShop();
    await app.webhook(other, 'orders/create', payload);
    expect(await links(other, id)).toHaveLength(1);
    // A cancelled order without video lines is not remembered: nothing to keep from being made.
    const plain = orderPayload({ id: fakeShopifyId(), lines: [{ id: fakeShopifyId(), marker: false }] });
    const plainCancelled = await app.webhook(shop, 'orders/cancelled', {
      ...plain,
      cancelled_at: '2026-10-02T11:00:00Z',
    });
    expect((await receipt(plainCancelled.webhookId))?.note ?? null).toBeNull();
    const kept = await db()
      .selectFrom('shopify_cancelled_orders')
      .select('shopify_order_id')
      .where('shop', '=', shop)
      .execute();
    expect(kept.map((row) => row.shopify_order_id)).toEqual([String(id)]);
  });

  it('marks the shop inactive on uninstall; paid video orders still deliver, new ones are not created', async () => {
    const { shop } = await newShop();
    const { shopifyOrderId, lineItemIds, orderIds } = await placeOrder(shop);
    await app.webhook(shop, 'app/uninstalled', { id: 1, domain: shop });
    expect(await db().selectFrom('shops').selectAll().where('domain', '=', shop).executeTakeFirst()).toMatchObject({
      active: false,
      access_token: null,
    });
    await app.webhook(
      shop,
      'fulfillments/update',
      fulfillmentPayload({
        id: 9,
        orderId: shopifyOrderId,
        lineItemIds,
        trackingCompany: 'Hermes',
        trackingNumber: 'H9',
        shipmentStatus: 'delivered',
        updatedAt: '2026-10-04T10:00:00Z',
      }),
    );
    expect(await order(orderIds[0]!)).toMatchObject({ status: 'delivered' });
    const later = await placeOrder(shop);
    expect(later.orderIds).toEqual([]);
  });
});

describe('shop/update', () => {
  it('follows a renamed shop and its new time zone; a blank name or an unknown zone changes nothing (Shopify probe)', async () => {
    const { shop, accountId } = await newShop();
    const account = () =>
      db().selectFrom('accounts').select('name').where('id', '=', accountId).executeTakeFirstOrThrow();
    const zone = () =>
      db().selectFrom('shops').select('iana_timezone').where('domain', '=', shop).executeTakeFirstOrThrow();
    const sent = await app.webhook(shop, 'shop/update', {
      id: 1,
      name: 'Maple & Thread Paris',
      iana_timezone: 'Europe/Paris',
      email: 'owner@example.com',
    });
    expect(sent.status).toBe(200);
    expect((await account()).name).toBe('Maple & Thread Paris');
    expect((await zone()).iana_timezone).toBe('Europe/Paris');

    expect((await app.webhook(shop, 'shop/update', { id: 1, name: '  ', iana_timezone: 'Mars/Olympus' })).status).toBe(
      200,
    );
    expect((await account()).name).toBe('Maple & Thread Paris');
    expect((await zone()).iana_timezone).toBe('Europe/Paris');
  });
});

describe('compliance topics', () => {
  it('customers/redact erases the customer’s personal data from their video orders', async () => {
    const { shop, auth } = await newShop();
    const { shopifyOrderId, orderIds } = await placeOrder(shop);
    const other = await placeOrder(shop);
    await app.webhook(shop, 'customers/redact', {
      shop_id: 1,
      shop_domain: shop,
      customer: { id: 7000000001, email: 'ann.sender@example.com', phone: null },
      orders_to_redact: [shopifyOrderId],
    });
    const erased = await order(orderIds[0]!);
    expect(erased).toMatchObject({
      name: '[erased]',
      recipient_name: '[erased]',
      recipient_email: null,
      recipient_phone: null,
      status: 'cancelled',
    });
    expect(erased.deleted_at).not.toBeNull();
    expect((await getJson(app.baseUrl, `/v1/orders/${orderIds[0]}`, auth)).status).toBe(404);
    // Same customer (by customer id) on another order: erased too.
    expect(await order(other.orderIds[0]!)).toMatchObject({ recipient_email: null });
    const bodies = await db()
      .selectFrom('webhook_receipts')
      .select('raw_body')
      .where('shop', '=', shop)
      .where('topic', '=', 'orders/create')
      .execute();
    expect(bodies.every((b) => !b.raw_body.includes('bob@example.com'))).toBe(true);
  });

  it('customers/data_request produces an export the merchant fetches with the account credentials', async () => {
    const { shop, auth } = await newShop();
    // Three video orders of one customer (two lines of one Shopify order, then another order): the
    // export lists them oldest first, whatever order the database finds them in.
    const first = await placeOrder(shop, [
      { id: fakeShopifyId(), recipientName: 'Bob', recipientEmail: 'bob@example.com' },
      { id: fakeShopifyId(), recipientName: 'Cy', recipientEmail: 'cy@example.com' },
    ]);
    const second = await placeOrder(shop, [
      { id: fakeShopifyId(), recipientName: 'Di', recipientEmail: 'di@example.com' },
    ]);
    const orderIds = [...first.orderIds, ...second.orderIds];
    // The first gift has captions the sender typed and a thank-you note back, stored as the record
    // page and the thanks module store them (the upload and reply flows have their own tests).
    const [withWords, account] = [orderIds[0]!, (await order(orderIds[0]!)).account_id];
    const at = new Date('2026-10-03T10:00:00Z');
    const videoId = randomUUID();
    await db()
      .insertInto('videos')
      .values({
        id: videoId,
        order_id: withWords,
        storage_key: `videos/${withWords}/gift`,
        content_type: 'video/webm',
        size_bytes: 1000,
        status: 'processed',
        failure_reason: null,
        duration_tenths: 50,
        created_at: at,
        processed_at: at,
        poster_key: null,
        transcript: 'Happy birthday, Bob!',
      })
      .execute();
    await db()
      .insertInto('thanks')
      .values({
        order_id: withWords,
        account_id: account,
        key: randomUUID(),
        reply: 'note',
        note: 'Thank you, Ann!',
        video_id: null,
        recorded_at: at,
        sent_at: null,
      })
      .execute();
    const payload = {
      shop_id: 1,
      shop_domain: shop,
      customer: { id: 7000000001, email: 'ann.sender@example.com', phone: null },
      orders_requested: [],
      data_request: { id: 9999 },
    };
    const sent = await app.webhook(shop, 'customers/data_request', payload);
    const exportId = /export (dex_\w+)/.exec((await receipt(sent.webhookId))!.note!)![1]!;
    const list = await getJson(app.baseUrl, '/v1/shopify/data-exports', auth);
    expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([exportId]);
    const data = await getJson(app.baseUrl, `/v1/shopify/data-exports/${exportId}`, auth);
    expect(data.body).toMatchObject({ shop, data_request_id: '9999' });
    expect(
      data.body.video_orders.map((o: { id: string; recipient_email: string }) => [o.id, o.recipient_email]),
    ).toEqual([
      [orderIds[0], 'bob@example.com'],
      [orderIds[1], 'cy@example.com'],
      [orderIds[2], 'di@example.com'],
    ]);
    // The customers' own words are theirs to see: the gift's captions and the thank-you note.
    expect(data.body.video_orders[0]).toMatchObject({
      video_transcript: 'Happy birthday, Bob!',
      thank_you: { reply: 'note', note: 'Thank you, Ann!', recorded_at: '2026-10-03T10:00:00Z' },
    });
    expect(data.body.video_orders[1]).toMatchObject({ video_transcript: null, thank_you: null });
    // Another account cannot read it.
    const stranger = await newShop();
    expect((await getJson(app.baseUrl, `/v1/shopify/data-exports/${exportId}`, stranger.auth)).status).toBe(404);
    // A redelivery does not make a second export.
    await app.webhook(shop, 'customers/data_request', payload);
    expect((await getJson(app.baseUrl, '/v1/shopify/data-exports', auth)).body.data).toHaveLength(1);
  });

  it("shop/redact deletes the shop's data", async () => {
    const { shop } = await newShop();
    const { shopifyOrderId, lineItemIds, orderIds } = await placeOrder(shop);
    await fulfill(shop, {
      id: 3,
      orderId: shopifyOrderId,
      lineItemIds,
      trackingCompany: 'Hermes',
      trackingNumber: 'H',
    });
    await app.webhook(shop, 'app/uninstalled', { id: 1 });
    const sent = await app.webhook(shop, 'shop/redact', { shop_id: 1, shop_domain: shop });
    expect((await receipt(sent.webhookId))?.status).toBe('processed');
    expect(await order(orderIds[0]!)).toMatchObject({ name: '[erased]', recipient_email: null });
    for (const table of ['shopify_order_links', 'shopify_fulfillments'] as const) {
      expect(await db().selectFrom(table).select('shop').where('shop', '=', shop).execute()).toEqual([]);
    }
    expect(await db().selectFrom('shops').select('domain').where('domain', '=', shop).execute()).toEqual([]);
    expect(
      (await db().selectFrom('webhook_receipts').select('webhook_id').where('shop', '=', shop).execute()).map(
        (r) => r.webhook_id,
      ),
    ).toEqual([sent.webhookId]);
  });

  it('shop/redact leaves a shop that installed again since it uninstalled (merchant probe: its next orders were refused)', async () => {
    const { shop } = await newShop();
    const { orderIds } = await placeOrder(shop);
    await app.webhook(shop, 'app/uninstalled', { id: 1 });
    await app.addShop(shop);
    const sent = await app.webhook(shop, 'shop/redact', { shop_id: 1, shop_domain: shop });
    expect(await receipt(sent.webhookId)).toMatchObject({
      status: 'processed',
      note: `not erased: ${shop} has installed Doorstep again since it uninstalled`,
    });
    expect((await order(orderIds[0]!)).name).not.toBe('[erased]');
    expect(await db().selectFrom('shops').select('domain').where('domain', '=', shop).execute()).toEqual([
      { domain: shop },
    ]);
    // Its next order still makes a video order.
    expect((await placeOrder(shop)).orderIds).toHaveLength(1);
  });
});

describe('replay', () => {
  it('replaying every webhook of a story changes nothing', async () => {
    const { shop } = await newShop();
    const { shopifyOrderId, lineItemIds, orderIds } = await placeOrder(shop);
    await fulfill(shop, {
      id: 61,
      orderId: shopifyOrderId,
      lineItemIds,
      trackingCompany: 'Canada Post',
      trackingNumber: 'CP61',
    });
    await app.webhook(
      shop,
      'fulfillments/update',
      fulfillmentPayload({
        id: 61,
        orderId: shopifyOrderId,
        lineItemIds,
        trackingCompany: 'Canada Post',
        trackingNumber: 'CP61',
        shipmentStatus: 'delivered',
        updatedAt: '2026-10-04T10:00:00Z',
      }),
    );
    const before = {
      order: await order(orderIds[0]!),
      events: await events(orderIds[0]!),
      links: await links(shop, shopifyOrderId),
    };
    await replayEveryWebhook(app, shop);
    expect({
      order: await order(orderIds[0]!),
      events: await events(orderIds[0]!),
      links: await links(shop, shopifyOrderId),
    }).toEqual(before);
  });
});
