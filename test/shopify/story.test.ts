import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  fakeShopifyId,
  orderPayload,
  randomUpsTrackingNumber,
  signedWebhook,
} from '../../src/shopify/dev/webhook-payloads.ts';
import { reenqueueUnprocessedWebhooks } from '../../src/shopify/intake/queue.ts';
import type { SendKind } from '../../src/vocabulary.ts';
import { eventually } from '../support/workers.ts';
import {
  getJson,
  placeOneLineOrder,
  replayEveryWebhook,
  SECRET,
  sendFulfillmentCreated,
  startShopifyTestApp,
  type ShopifyTestApp,
  videoOrderOf,
} from './harness.ts';

let app: ShopifyTestApp;
beforeAll(async () => {
  app = await startShopifyTestApp({ queue: true });
});
afterAll(async () => {
  await app.close();
});
// The workers process webhooks out of the test's sight: a processing error must still fail the test.
afterEach(async () => {
  expect(await app.processingErrors()).toEqual([]);
});

const db = () => app.services.database.db;

describe('a store story through the real queue, workers and carrier sandbox', () => {
  it('orders/create → fulfillments/create (UPS) → sandbox delivery: delivered once; replays change nothing', async () => {
    const shop = `story-${Date.now()}.myshopify.com`;
    const { auth } = await app.addShop(shop);
    const { shopifyOrderId, lineItemId } = await placeOneLineOrder(app, shop);
    const orderId = await videoOrderOf(app, shop, shopifyOrderId);
    const sends = (kind: SendKind) =>
      db()
        .selectFrom('sends')
        .select(['status', 'destination'])
        .where('order_id', '=', orderId)
        .where('kind', '=', kind)
        .execute();
    // The shopper (sender) is e-mailed the record link; they record.
    await eventually(
      async () => ((await sends('sender_record_link')).some((s) => s.status === 'sent') ? true : undefined),
      15_000,
      'the record link e-mail',
    );
    await app.services.orders.markRecorded(orderId, { durationTenths: 60 });

    const number = randomUpsTrackingNumber();
    await sendFulfillmentCreated(app, shop, {
      orderId: shopifyOrderId,
      lineItemIds: [lineItemId],
      trackingCompany: 'UPS',
      trackingNumber: number,
    });
    await eventually(
      async () =>
        (await getJson(app.baseUrl, `/v1/orders/${orderId}`, auth)).body.tracking_number === number ? true : undefined,
      15_000,
      'tracking',
    );

    const sandbox = await fetch(`${app.baseUrl}/sandbox/carriers/ups/packages/${number}/events`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ status: 'delivered' }),
    });
    expect(sandbox.status).toBe(201);
    const delivered = await eventually(
      async () => {
        const current = (await getJson(app.baseUrl, `/v1/orders/${orderId}`, auth)).body;
        return current.status === 'delivered' ? current : undefined;
      },
      20_000,
      'delivery',
    );
    expect(delivered).toMatchObject({ carrier: 'ups', tracking_number: number, delivered: '1' });
    const recipientSends = await eventually(
      async () => {
        const rows = await sends('recipient_video');
        return rows.some((r) => r.status === 'sent') ? rows : undefined;
      },
      15_000,
      'the recipient notification',
    );
    expect(recipientSends).toEqual([{ status: 'sent', destination: 'bob@example.com' }]);

    const timeline = async () => (await getJson(app.baseUrl, `/v1/orders/${orderId}/events`, auth)).body.data;
    // Let the last message (the "your video was sent" note to the sender) settle before comparing.
    await eventually(
      async () => ((await sends('sender_sent_note')).some((s) => s.status === 'sent') ? true : undefined),
      15_000,
      'the sender note',
    );
    const before = await timeline();
    expect(before.filter((e: { type: string }) => e.type === 'order.delivered')).toHaveLength(1);
    const allSends = () =>
      db()
        .selectFrom('sends')
        .select(['kind', 'channel', 'status', 'destination'])
        .where('order_id', '=', orderId)
        .orderBy('kind')
        .orderBy('channel')
        .orderBy('id')
        .execute();
    const sendsBefore = await allSends();
    await replayEveryWebhook(app, shop);
    expect(await timeline()).toEqual(before);
    // Every message is a row before any provider is called, so a message the replays queued would
    // already be here (no waiting needed to catch one): nothing new, nothing changed.
    expect(await allSends()).toEqual(sendsBefore);
    expect(await sends('recipient_video')).toEqual([{ status: 'sent', destination: 'bob@example.com' }]);
  });

  it('answers 200 fast under a burst, and every receipt is processed through the queue', async () => {
    const shop = `burst-${Date.now()}.myshopify.com`;
    await app.addShop(shop);
    const sends = Array.from({ length: 60 }, () => {
      const webhook = signedWebhook(
        SECRET,
        shop,
        'orders/create',
        orderPayload({ id: fakeShopifyId(), lines: [{ id: fakeShopifyId(), recipientEmail: 'bob@example.com' }] }),
      );
      const started = Date.now();
      return fetch(`${app.baseUrl}/shopify/webhooks`, {
        method: 'POST',
        headers: webhook.headers,
        body: webhook.body,
      }).then(async (response) => {
        await response.text();
        return { status: response.status, ms: Date.now() - started };
      });
    });
    const results = await Promise.all(sends);
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(Math.max(...results.map((r) => r.ms))).toBeLessThan(4_000);
    // Wait until none is still waiting; then every one must have been processed (a failed one says why).
    await eventually(
      async () => {
        const waiting = await db()
          .selectFrom('webhook_receipts')
          .select('webhook_id')
          .where('shop', '=', shop)
          .where('status', '=', 'received')
          .execute();
        return waiting.length === 0 ? true : undefined;
      },
      30_000,
      'all receipts processed',
    );
    expect(
      await db()
        .selectFrom('webhook_receipts')
        .select(['status', 'error'])
        .where('shop', '=', shop)
        .where('status', '!=', 'processed')
        .execute(),
    ).toEqual([]);
    expect(
      await db().selectFrom('shopify_order_links').select('order_id').where('shop', '=', shop).execute(),
    ).toHaveLength(60);
  });

  it('the reconciler re-enqueues receipts whose job was lost', async () => {
    const shop = `lost-${Date.now()}.myshopify.com`;
    await app.addShop(shop);
    const shopifyOrderId = fakeShopifyId();
    // A receipt stored while Redis was unreachable: in PostgreSQL, never queued.
    await db()
      .insertInto('webhook_receipts')
      .values({
        webhook_id: `lost-${shopifyOrderId}`,
        topic: 'orders/create',
        shop,
        raw_body: JSON.stringify(
          orderPayload({ id: shopifyOrderId, lines: [{ id: 1, recipientEmail: 'bob@example.com' }] }),
        ),
        status: 'received',
        received_at: new Date(Date.now() - 120_000),
      })
      .execute();
    const enqueue = app.shopify.deps.enqueue!;
    expect(await reenqueueUnprocessedWebhooks(db(), enqueue)).toBeGreaterThanOrEqual(1);
    await videoOrderOf(app, shop, shopifyOrderId);
  });
});

describe('shopify simulate (the CLI story), against the app', () => {
  for (const [company, addOn] of [
    ['UPS', false],
    ['Canada Post', false],
    ['UPS', true],
    ['Canada Post', true],
  ] as const) {
    it(`plays order → fulfillment (${company}) → delivery to one delivered order${addOn ? ', the video a non-shipping add-on' : ''}`, async () => {
      const { simulateStore } = await import('../../src/shopify/dev/simulate.ts');
      const { shopifyAdminCommands } = await import('../../src/shopify/admin/commands.ts');
      const commands = shopifyAdminCommands(
        db(),
        app.shopify,
        'https://doorstep.test',
        () => app.shopify.deps.tokenCipher,
      );
      const shop = `sim-${company.replace(' ', '').toLowerCase()}${addOn ? '-addon' : ''}-${Date.now()}.myshopify.com`;
      await commands['shops.add']({ shop });
      const lines: string[] = [];
      const order = await simulateStore({
        shop,
        publicUrl: app.baseUrl,
        apiSecret: SECRET,
        carrierCompany: company,
        addOn,
        videoOrders: async (shopifyOrderId) => (await commands['shopify.orders']({ shop, shopifyOrderId })) as never,
        log: (line) => lines.push(line),
        timeoutMs: 20_000,
      });
      expect(order).toMatchObject({ status: 'delivered', delivered: '1' });
      expect(lines.join('\n')).toContain(company === 'UPS' ? 'sandbox: ups reports' : 'not trackable by carrier');
    });
  }
});
