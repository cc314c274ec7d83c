import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  fakeShopifyId,
  fulfillmentPayload,
  orderPayload,
  type GiftLine,
} from '../../src/shopify/dev/webhook-payloads.ts';
import { updateShopSettings } from '../../src/shopify/shops.ts';
import { startMailServer } from '../support/mail-server.ts';
import { eventually } from '../support/workers.ts';
import { getJson, startShopifyTestApp, type ShopifyTestApp, videoOrderOf } from './harness.ts';

/**
 * Issue 9, "every video line item reaches a send, or shows why": a video sold as a non-shipping
 * add-on next to the gift, the shop's choice of which shipped items it waits for, and a line item
 * that came without a recipient — all through signed webhooks, the real queue and workers, and a
 * real SMTP server.
 */
let app: ShopifyTestApp;
let mail: Awaited<ReturnType<typeof startMailServer>>;
beforeAll(async () => {
  mail = await startMailServer();
  app = await startShopifyTestApp({ queue: true, env: { SMTP_URL: mail.url } });
});
afterAll(async () => {
  await app.close();
  await mail.close();
});
afterEach(async () => {
  expect(await app.processingErrors()).toEqual([]);
});

const db = () => app.services.database.db;

/** Ships `lineItemIds` with a carrier Doorstep does not track, and Shopify reports it delivered (or not yet). */
async function ship(
  shop: string,
  shopifyOrderId: number,
  lineItemIds: number[],
  options: { delivered: boolean; fulfillmentId?: number },
): Promise<number> {
  const id = options.fulfillmentId ?? fakeShopifyId();
  const at = new Date(Date.now() + (options.delivered ? 1_000 : 0)).toISOString();
  await app.webhook(
    shop,
    options.delivered ? 'fulfillments/update' : 'fulfillments/create',
    fulfillmentPayload({
      id,
      orderId: shopifyOrderId,
      lineItemIds,
      trackingCompany: 'Canada Post',
      trackingNumber: `CP${id}`,
      shipmentStatus: options.delivered ? 'delivered' : null,
      createdAt: new Date(Date.now() - 60_000).toISOString(),
      updatedAt: at,
    }),
  );
  return id;
}

/** One package of `lineItemIds`: Shopify creates its fulfillment, then reports it delivered. */
async function shipAndDeliver(shop: string, shopifyOrderId: number, lineItemIds: number[]): Promise<void> {
  const id = await ship(shop, shopifyOrderId, lineItemIds, { delivered: false });
  await ship(shop, shopifyOrderId, lineItemIds, { delivered: true, fulfillmentId: id });
}

/** Waits until the worker has processed every webhook the shop was sent (its sync ran). */
async function everyWebhookProcessed(shop: string): Promise<void> {
  await eventually(
    async () => {
      const waiting = await db()
        .selectFrom('webhook_receipts')
        .select((eb) => eb.fn.countAll<string>().as('count'))
        .where('shop', '=', shop)
        .where('processed_at', 'is', null)
        .executeTakeFirstOrThrow();
      return Number(waiting.count) === 0 ? true : undefined;
    },
    15_000,
    `every webhook of ${shop} processed`,
  );
}

async function timelineTypes(orderId: string, auth: string): Promise<string[]> {
  return (await getJson(app.baseUrl, `/v1/orders/${orderId}/events`, auth)).body.data.map(
    (entry: { type: string }) => entry.type,
  );
}

/**
 * A Shopify order of a candle and `mugs` mugs that ship, and a video message sold as a non-shipping
 * add-on for `recipientEmail`, recorded. With `giftKey`, the storefront block marked the candle.
 */
async function recordedAddonOrder(shop: string, recipientEmail: string, giftKey?: string, mugs = 1) {
  const [orderId, candle, mug, video] = [fakeShopifyId(), fakeShopifyId(), fakeShopifyId(), fakeShopifyId()];
  const key = giftKey ? { giftKey } : {};
  const lines: GiftLine[] = [
    { id: candle, marker: false, title: 'Candle', ...key },
    { id: mug, marker: false, title: 'Mug', quantity: mugs },
    { id: video, recipientEmail, requiresShipping: false, ...key },
  ];
  await app.webhook(shop, 'orders/create', orderPayload({ id: orderId, lines }));
  const order = await videoOrderOf(app, shop, orderId);
  await app.services.orders.markRecorded(order, { durationTenths: 50 });
  /**
   * The order after the merchant edited it: what is left of each line in `left` (0: removed), and
   * the lines the edit `added`. Its `updated_at` is a day after the order's.
   */
  const editedPayload = (left: Record<number, number>, added: GiftLine[] = []) =>
    orderPayload({
      id: orderId,
      updatedAt: '2026-12-02T09:00:00-05:00',
      lines: [...lines.map((line) => (line.id in left ? { ...line, currentQuantity: left[line.id] } : line)), ...added],
    });
  /** The order as first placed: Shopify's older version of it, should a webhook of it come late. */
  const originalPayload = () => orderPayload({ id: orderId, lines });
  return { orderId, candle, mug, video, order, editedPayload, originalPayload };
}

async function recipientEmailArrives(address: string): Promise<void> {
  await eventually(
    async () => (mail.messages.some((m) => m.to.includes(address)) ? true : undefined),
    15_000,
    'the recipient e-mail',
  );
}

async function timelineGets(order: string, auth: string, type: string): Promise<void> {
  await eventually(
    async () => ((await timelineTypes(order, auth)).includes(type) ? true : undefined),
    15_000,
    `${type} on the timeline`,
  );
}

describe('a video sold as a non-shipping add-on next to the gift', () => {
  it('waits for every shipped item by default: delivered when the last shipped package is', async () => {
    const shop = `addon-all-${Date.now()}.myshopify.com`;
    const { auth } = await app.addShop(shop);
    const { orderId, candle, mug, order } = await recordedAddonOrder(shop, 'bob@example.com');
    const first = await ship(shop, orderId, [candle], { delivered: false });
    const second = await ship(shop, orderId, [mug], { delivered: false });
    await ship(shop, orderId, [candle], { delivered: true, fulfillmentId: first });
    // One of two packages: the order waits, and its timeline says Shopify's signal decides.
    await timelineGets(order, auth, 'delivery.via_shopify');
    expect((await getJson(app.baseUrl, `/v1/orders/${order}`, auth)).body.delivered).toBe('0');
    await ship(shop, orderId, [mug], { delivered: true, fulfillmentId: second });
    await recipientEmailArrives('bob@example.com');
  });

  it('an item not fulfilled yet holds the video, even when every package that did ship is delivered', async () => {
    const shop = `addon-unshipped-${Date.now()}.myshopify.com`;
    const { auth } = await app.addShop(shop);
    const { orderId, candle, mug, order } = await recordedAddonOrder(shop, 'erin@example.com');
    await shipAndDeliver(shop, orderId, [candle]);
    await timelineGets(order, auth, 'delivery.awaiting_shipment');
    await everyWebhookProcessed(shop);
    expect((await getJson(app.baseUrl, `/v1/orders/${order}`, auth)).body.delivered).toBe('0');
    expect(mail.messages.some((m) => m.to.includes('erin@example.com'))).toBe(false);
    await shipAndDeliver(shop, orderId, [mug]);
    await recipientEmailArrives('erin@example.com');
  });

  it('with the shop set to "the item the block was added to", waits only for that item, then sends', async () => {
    const shop = `addon-gift-${Date.now()}.myshopify.com`;
    const { auth } = await app.addShop(shop);
    await updateShopSettings(db(), shop, { gift_packages: 'gift_item' }, new Date());
    const { orderId, candle, mug, order } = await recordedAddonOrder(shop, 'cleo@example.com', 'g-1');
    await ship(shop, orderId, [mug], { delivered: false });
    await shipAndDeliver(shop, orderId, [candle]);
    await recipientEmailArrives('cleo@example.com');
    expect((await getJson(app.baseUrl, `/v1/orders/${order}`, auth)).body).toMatchObject({ delivered: '1' });
  });

  it('two mugs in two boxes: the first box delivered sends nothing, the second one sends the video', async () => {
    const shop = `addon-two-boxes-${Date.now()}.myshopify.com`;
    const { auth } = await app.addShop(shop);
    const { orderId, candle, mug, order } = await recordedAddonOrder(shop, 'hal@example.com', undefined, 2);
    await shipAndDeliver(shop, orderId, [candle, mug]);
    await timelineGets(order, auth, 'delivery.awaiting_shipment');
    await everyWebhookProcessed(shop);
    const events = (await getJson(app.baseUrl, `/v1/orders/${order}/events`, auth)).body.data;
    expect(events).toContainEqual(
      expect.objectContaining({ data: { reason: expect.stringContaining('“Mug” with 1 of 2 shipped') } }),
    );
    expect(mail.messages.some((m) => m.to.includes('hal@example.com'))).toBe(false);
    await shipAndDeliver(shop, orderId, [mug]);
    await recipientEmailArrives('hal@example.com');
  });

  it('an order edit that removes the item not shipped yet lets the video go when the rest is delivered', async () => {
    const shop = `addon-edited-${Date.now()}.myshopify.com`;
    const { auth } = await app.addShop(shop);
    const { orderId, candle, mug, order, editedPayload } = await recordedAddonOrder(shop, 'fay@example.com');
    await shipAndDeliver(shop, orderId, [candle]);
    await timelineGets(order, auth, 'delivery.awaiting_shipment');
    // The mug is out of stock: the merchant edits it out of the order, and Shopify says so.
    await app.webhook(shop, 'orders/updated', editedPayload({ [mug]: 0 }));
    await recipientEmailArrives('fay@example.com');
    // Shopify's next orders/updated of the same order (a tag added, say) changes nothing twice.
    await app.webhook(shop, 'orders/updated', editedPayload({ [mug]: 0 }));
    await everyWebhookProcessed(shop);
    const events = (await getJson(app.baseUrl, `/v1/orders/${order}/events`, auth)).body.data;
    expect(events.filter((event: { type: string }) => event.type === 'delivery.gift_changed')).toEqual([
      expect.objectContaining({ data: { reason: expect.stringContaining('removed “Mug”') } }),
    ]);
    expect(mail.messages.filter((m) => m.to.includes('fay@example.com'))).toHaveLength(1);
  });

  it('an order edit that takes the second mug out lets the video go on the first box', async () => {
    const shop = `addon-reduced-${Date.now()}.myshopify.com`;
    const { auth } = await app.addShop(shop);
    const { orderId, candle, mug, order, editedPayload } = await recordedAddonOrder(
      shop,
      'ida@example.com',
      undefined,
      2,
    );
    await shipAndDeliver(shop, orderId, [candle, mug]);
    await timelineGets(order, auth, 'delivery.awaiting_shipment');
    await app.webhook(shop, 'orders/updated', editedPayload({ [mug]: 1 }));
    await recipientEmailArrives('ida@example.com');
    const events = (await getJson(app.baseUrl, `/v1/orders/${order}/events`, auth)).body.data;
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'delivery.gift_changed',
        data: { reason: expect.stringContaining('took “Mug” from 2 to 1') },
      }),
    );
  });

  it('an order edit that swaps the mug for another waits for the new one; an older payload processed late changes nothing', async () => {
    const shop = `addon-swapped-${Date.now()}.myshopify.com`;
    const { auth } = await app.addShop(shop);
    const { orderId, candle, mug, order, editedPayload, originalPayload } = await recordedAddonOrder(
      shop,
      'jo@example.com',
    );
    await shipAndDeliver(shop, orderId, [candle]);
    await timelineGets(order, auth, 'delivery.awaiting_shipment');
    const blueMug = fakeShopifyId();
    await app.webhook(
      shop,
      'orders/updated',
      editedPayload({ [mug]: 0 }, [{ id: blueMug, marker: false, title: 'Blue mug' }]),
    );
    await timelineGets(order, auth, 'delivery.gift_changed');
    await app.webhook(shop, 'orders/updated', originalPayload());
    await everyWebhookProcessed(shop);
    const events = (await getJson(app.baseUrl, `/v1/orders/${order}/events`, auth)).body.data;
    expect(events.filter((event: { type: string }) => event.type === 'delivery.gift_changed')).toEqual([
      expect.objectContaining({
        data: {
          reason: expect.stringContaining('removed “Mug”; added “Blue mug”'),
        },
      }),
    ]);
    expect(mail.messages.some((m) => m.to.includes('jo@example.com'))).toBe(false);
    await shipAndDeliver(shop, orderId, [blueMug]);
    await recipientEmailArrives('jo@example.com');
  });

  it('an order edit that removes the video message cancels its video order: the packages send nothing', async () => {
    const shop = `addon-video-removed-${Date.now()}.myshopify.com`;
    const { auth } = await app.addShop(shop);
    const { orderId, candle, mug, video, order, editedPayload } = await recordedAddonOrder(shop, 'gus@example.com');
    await app.webhook(shop, 'orders/updated', editedPayload({ [video]: 0 }));
    await timelineGets(order, auth, 'order.cancelled');
    await shipAndDeliver(shop, orderId, [candle, mug]);
    await everyWebhookProcessed(shop);
    const events = (await getJson(app.baseUrl, `/v1/orders/${order}/events`, auth)).body.data;
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'order.cancelled',
        data: { reason: expect.stringContaining('order edit removed the video message (“Video gift message”)') },
      }),
    );
    expect((await getJson(app.baseUrl, `/v1/orders/${order}`, auth)).body.delivered).toBe('0');
    expect(mail.messages.some((m) => m.to.includes('gus@example.com'))).toBe(false);
  });

  it('an order where nothing ships says so on the video order’s timeline, once', async () => {
    const shop = `addon-digital-${Date.now()}.myshopify.com`;
    const { auth } = await app.addShop(shop);
    const orderId = fakeShopifyId();
    const payload = orderPayload({
      id: orderId,
      lines: [{ id: fakeShopifyId(), recipientEmail: 'dan@example.com', requiresShipping: false }],
    });
    await app.webhook(shop, 'orders/create', payload);
    // Shopify's orders/updated of the same order: the notice is already there, and not said twice.
    await app.webhook(shop, 'orders/updated', payload);
    const order = await videoOrderOf(app, shop, orderId);
    const events = (await getJson(app.baseUrl, `/v1/orders/${order}/events`, auth)).body.data;
    expect(events.filter((event: { type: string }) => event.type === 'delivery.blocked')).toEqual([
      expect.objectContaining({
        type: 'delivery.blocked',
        data: { reason: expect.stringContaining('no item that ships') },
      }),
    ]);
  });
});

describe('a video line item that came without a recipient', () => {
  it('becomes an order awaiting one; the sender is asked, supplies it on the record page, and the video is sent', async () => {
    const shop = `no-recipient-${Date.now()}.myshopify.com`;
    const { auth } = await app.addShop(shop);
    const [orderId, gift] = [fakeShopifyId(), fakeShopifyId()];
    const sender = `ann-${orderId}@example.com`;
    await app.webhook(
      shop,
      'orders/create',
      orderPayload({ id: orderId, email: sender, lines: [{ id: gift, recipientName: 'Eve' }] }),
    );
    const orderIdInDoorstep = await videoOrderOf(app, shop, orderId);
    const order = (await getJson(app.baseUrl, `/v1/orders/${orderIdInDoorstep}`, auth)).body;
    expect(order).toMatchObject({ recipient_name: 'Eve', recipient_email: null, recipient_phone: null });
    const events = (await getJson(app.baseUrl, `/v1/orders/${order.id}/events`, auth)).body.data;
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'order.needs_recipient',
        source: 'shopify',
        data: { reason: expect.stringContaining('no recipient e-mail or phone') },
      }),
    );

    // The record-link e-mail asks for the recipient.
    const recordLink = await eventually(
      async () => mail.messages.find((m) => m.to.includes(sender)),
      15_000,
      'the record-link e-mail',
    );
    expect(recordLink.raw).toContain('came without the recipient');

    // Refused with a reason: neither address, or a bad one.
    const put = (body: unknown) =>
      fetch(`${app.baseUrl}/record/${order.uuid}/recipient`, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const neither = await put({ recipient_name: 'Eve' });
    expect(neither.status).toBe(422);
    expect(((await neither.json()) as { error: { fields: object } }).error.fields).toHaveProperty('recipient_email');
    expect((await put({ recipient_name: 'Eve', recipient_email: 'eve@' })).status).toBe(422);
    // A phone too long for its country is refused here as on the API (fields probe).
    const impossiblePhone = await put({ recipient_name: 'Eve', recipient_phone: '+1 415 555 01234' });
    expect(impossiblePhone.status).toBe(422);
    expect(((await impossiblePhone.json()) as { error: { fields: object } }).error.fields).toEqual({
      recipient_phone: 'is too long for a +1 number',
    });

    // Delivered before the sender answers: the timeline says why nothing went out.
    await app.services.orders.markRecorded(order.id, { durationTenths: 70 });
    await ship(shop, orderId, [gift], { delivered: true });
    await eventually(
      async () => {
        const timeline = (await getJson(app.baseUrl, `/v1/orders/${order.id}/events`, auth)).body.data;
        return timeline.some(
          (e: { type: string; data: { reason?: string } }) =>
            e.type === 'send.waiting' && e.data.reason?.includes('no recipient yet'),
        )
          ? true
          : undefined;
      },
      15_000,
      'the send.waiting reason',
    );

    const saved = await put({ recipient_name: 'Eve Doe', recipient_email: 'eve@example.com' });
    expect(saved.status).toBe(200);
    expect(await saved.json()).toEqual({ status: 'saved', recipient_name: 'Eve Doe' });
    await eventually(
      async () => mail.messages.find((m) => m.to.includes('eve@example.com')),
      15_000,
      'the recipient e-mail',
    );
    const after = (await getJson(app.baseUrl, `/v1/orders/${order.id}`, auth)).body;
    expect(after).toMatchObject({ recipient_email: 'eve@example.com', send_method: 'email', delivered: '1' });
    const updated = (await getJson(app.baseUrl, `/v1/orders/${order.id}/events`, auth)).body.data.find(
      (e: { type: string; source: string }) => e.type === 'order.updated' && e.source === 'sender',
    );
    expect(updated.data.fields).toEqual(expect.arrayContaining(['recipient_name', 'recipient_email']));

    // Once it has a recipient, the record link no longer changes it.
    expect((await put({ recipient_name: 'Mallory', recipient_email: 'mallory@example.com' })).status).toBe(409);
    expect(
      (
        await fetch(`${app.baseUrl}/record/00000000-0000-4000-8000-000000000000/recipient`, {
          method: 'PUT',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ recipient_name: 'X', recipient_email: 'x@example.com' }),
        })
      ).status,
    ).toBe(404);
  });
});
