import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeShopifyId, randomUpsTrackingNumber } from '../../src/shopify/dev/webhook-payloads.ts';
import { TestClock } from '../support/clock.ts';
import {
  placeOneLineOrder,
  sendFulfillmentCreated,
  sendFulfillmentEvent,
  startShopifyTestApp,
  type ShopifyTestApp,
} from './harness.ts';

/**
 * Free signals (docs/tracking.md "Free signals"): Shopify's fulfillment events feed the tracking
 * schedule without a carrier call. Signed webhooks into the real app, the real database and the
 * sandboxed UPS over HTTP, polled on the real carriers' schedule (not the demo profile) on a test clock.
 */
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

let app: ShopifyTestApp;
// Thursday 2026-12-03, 14:00 in New York, 09:00 in Honolulu: inside every US zone's polling hours.
const clock = new TestClock('2026-12-03T19:00:00Z');

beforeAll(async () => {
  app = await startShopifyTestApp({ now: clock.now, sandboxSchedule: 'carrier' });
});
afterAll(async () => {
  expect(await app.processingErrors()).toEqual([]);
  await app.close();
});

const db = () => app.services.database.db;
const tracking = (orderId: string) =>
  db().selectFrom('trackings').selectAll().where('order_id', '=', orderId).executeTakeFirstOrThrow();
const shopifyEntries = (orderId: string) =>
  db()
    .selectFrom('order_events')
    .select(['type', 'source', 'data'])
    .where('order_id', '=', orderId)
    .where('source', '=', 'shopify')
    .where('type', 'in', ['tracking.status', 'tracking.estimate'])
    .orderBy('id')
    .execute();
const upsCalls = () => app.services.carrierSandbox!.state.carriers.ups.stats.trackCalls;
const iso = (offsetMs: number) => new Date(clock.now().getTime() + offsetMs).toISOString();

let shopCounter = 0;

/** What the sandboxed UPS says about a number (before the fulfillment: the first look reads it). */
async function upsSays(trackingNumber: string, status: string, estimatedDeliveryAt: string | null = null) {
  const response = await fetch(`${app.baseUrl}/sandbox/carriers/ups/packages/${trackingNumber}/events`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ status, at: iso(-2 * HOUR), estimated_delivery_at: estimatedDeliveryAt }),
  });
  expect(response.status).toBeLessThan(300);
}

/** A Shopify order whose video message ships in one UPS package. */
async function shippedGift() {
  const shop = `signals-${Date.now()}-${shopCounter++}.myshopify.com`;
  await app.addShop(shop);
  const { shopifyOrderId, lineItemId } = await placeOneLineOrder(app, shop);
  const link = await db()
    .selectFrom('shopify_order_links')
    .select('order_id')
    .where('shop', '=', shop)
    .where('shopify_order_id', '=', String(shopifyOrderId))
    .executeTakeFirstOrThrow();
  const fulfillmentId = fakeShopifyId();
  const trackingNumber = randomUpsTrackingNumber();
  const event = (status: string, options: { estimatedDeliveryAt?: string; happenedAt?: string } = {}) =>
    sendFulfillmentEvent(app, shop, {
      fulfillmentId,
      orderId: shopifyOrderId,
      status,
      happenedAt: options.happenedAt ?? iso(-5 * MINUTE),
      estimatedDeliveryAt: options.estimatedDeliveryAt ?? null,
    });
  const ship = async () =>
    expect(
      (
        await sendFulfillmentCreated(app, shop, {
          id: fulfillmentId,
          orderId: shopifyOrderId,
          lineItemIds: [lineItemId],
          trackingCompany: 'UPS',
          trackingNumber,
          updatedAt: iso(-HOUR),
        })
      ).status,
    ).toBe(200);
  return { orderId: link.order_id, trackingNumber, event, ship };
}

describe('fulfillment_events/create as free observations', () => {
  it('out_for_delivery brings the next poll forward to the dense cadence, without a carrier call', async () => {
    const gift = await shippedGift();
    // The carrier expects it Saturday: nothing to look at before Friday.
    await upsSays(gift.trackingNumber, 'in_transit', '2026-12-05T23:59:59Z');
    await gift.ship();
    const before = await tracking(gift.orderId);
    expect(before).toMatchObject({ status: 'in_transit', tracking_number: gift.trackingNumber });
    expect(before.next_poll_at!.getTime()).toBeGreaterThan(clock.now().getTime() + 6 * HOUR);

    clock.advance(HOUR);
    const calls = upsCalls();
    expect((await gift.event('out_for_delivery')).status).toBe(200);
    const after = await tracking(gift.orderId);
    expect(after.status).toBe('out_for_delivery');
    // The last poll was an hour ago, so the 15-minute cadence is due at once.
    expect(after.next_poll_at!.getTime()).toBeLessThanOrEqual(clock.now().getTime());
    expect(after.last_changed_at).toEqual(clock.now());
    expect(upsCalls()).toBe(calls);
    expect(await shopifyEntries(gift.orderId)).toEqual([
      {
        type: 'tracking.status',
        source: 'shopify',
        data: expect.objectContaining({ carrier: 'ups', status: 'out_for_delivery', via: 'shopify' }),
      },
    ]);

    // The poll it brought forward: the carrier says out for delivery too, and the cadence stays dense.
    await upsSays(gift.trackingNumber, 'out_for_delivery', '2026-12-05T23:59:59Z');
    for (const claim of await app.services.poller.claim('ups', 10))
      await app.services.poller.pollBatch('ups', claim.token);
    const polled = await tracking(gift.orderId);
    expect(polled.status).toBe('out_for_delivery');
    expect(polled.next_poll_at!.getTime()).toBeLessThanOrEqual(clock.now().getTime() + 15 * MINUTE);
  });

  it("estimated_delivery_at fills an empty estimate and stays through polls; it never overrides the carrier's", async () => {
    const without = await shippedGift();
    await upsSays(without.trackingNumber, 'in_transit');
    await without.ship();
    const before = await tracking(without.orderId);
    expect(before.estimated_delivery_at).toBeNull();

    expect((await without.event('in_transit', { estimatedDeliveryAt: '2026-12-08T23:59:59Z' })).status).toBe(200);
    const filled = await tracking(without.orderId);
    expect(filled.estimated_delivery_at).toBeNull(); // the carrier's column stays the carrier's
    expect(filled.observed_estimated_delivery_at).toEqual(new Date('2026-12-08T23:59:59Z'));
    // Days before the estimate an in-transit package keeps its two looks a day (09:30 and 21:30, so
    // an early delivery is seen within 12 h): the estimate moves nothing yet; it decides when the
    // estimated day's dense looks come (test/tracking/observation.test.ts, schedule.test.ts).
    expect(filled.next_poll_at).toEqual(before.next_poll_at);
    expect(await shopifyEntries(without.orderId)).toEqual([
      {
        type: 'tracking.estimate',
        source: 'shopify',
        data: expect.objectContaining({ estimated_delivery_at: '2026-12-08T23:59:59.000Z', via: 'shopify' }),
      },
    ]);

    // A poll whose carrier still gives no estimate leaves Shopify's in place.
    await db()
      .updateTable('trackings')
      .set({ next_poll_at: clock.now() })
      .where('order_id', '=', without.orderId)
      .execute();
    for (const claim of await app.services.poller.claim('ups', 10))
      await app.services.poller.pollBatch('ups', claim.token);
    const polled = await tracking(without.orderId);
    expect(polled.last_polled_at).toEqual(clock.now());
    expect(polled.observed_estimated_delivery_at).toEqual(new Date('2026-12-08T23:59:59Z'));
    expect(polled.next_poll_at).toEqual(filled.next_poll_at);

    const withCarrier = await shippedGift();
    await upsSays(withCarrier.trackingNumber, 'in_transit', '2026-12-05T23:59:59Z');
    await withCarrier.ship();
    const carrierBefore = await tracking(withCarrier.orderId);
    expect((await withCarrier.event('delayed', { estimatedDeliveryAt: '2026-12-09T23:59:59Z' })).status).toBe(200);
    const carrierAfter = await tracking(withCarrier.orderId);
    expect(carrierAfter.estimated_delivery_at).toEqual(new Date('2026-12-05T23:59:59Z'));
    expect(carrierAfter.observed_estimated_delivery_at).toBeNull();
    expect(carrierAfter.next_poll_at).toEqual(carrierBefore.next_poll_at);
    expect(await shopifyEntries(withCarrier.orderId)).toEqual([]);
  });

  it('a stale in_transit after the carrier said out_for_delivery changes nothing', async () => {
    const gift = await shippedGift();
    await upsSays(gift.trackingNumber, 'out_for_delivery');
    await gift.ship();
    const before = await tracking(gift.orderId);
    expect(before.status).toBe('out_for_delivery');

    clock.advance(5 * MINUTE);
    expect((await gift.event('in_transit', { happenedAt: iso(-3 * HOUR) })).status).toBe(200);
    expect((await gift.event('in_transit')).status).toBe(200);
    expect(await tracking(gift.orderId)).toEqual(before);
    expect(await shopifyEntries(gift.orderId)).toEqual([]);
  });

  it('an event that comes before its fulfillment is applied once the package is tracked', async () => {
    const gift = await shippedGift();
    await upsSays(gift.trackingNumber, 'in_transit', '2026-12-05T23:59:59Z');
    expect((await gift.event('out_for_delivery')).status).toBe(200);
    await gift.ship();
    const after = await tracking(gift.orderId);
    expect(after.status).toBe('out_for_delivery');
    expect(after.next_poll_at!.getTime()).toBeLessThanOrEqual(clock.now().getTime() + 15 * MINUTE);
    expect((await shopifyEntries(gift.orderId)).map((entry) => entry.data)).toEqual([
      expect.objectContaining({ status: 'out_for_delivery' }),
    ]);
  });

  it('unknown and label statuses are accepted and ignored; none delivers the order', async () => {
    const gift = await shippedGift();
    await upsSays(gift.trackingNumber, 'in_transit');
    await gift.ship();
    const before = await tracking(gift.orderId);

    for (const status of ['teleported', 'label_printed', 'picked_up', 'ready_for_pickup_soon']) {
      const response = await gift.event(status, {
        estimatedDeliveryAt: status === 'teleported' ? iso(DAY) : undefined,
      });
      expect(response.status).toBe(200);
      const receipt = await db()
        .selectFrom('webhook_receipts')
        .select(['status', 'error'])
        .where('webhook_id', '=', response.webhookId)
        .executeTakeFirstOrThrow();
      expect(receipt).toEqual({ status: 'processed', error: null });
    }
    expect(await tracking(gift.orderId)).toEqual(before);
    expect(await shopifyEntries(gift.orderId)).toEqual([]);
    const order = await db()
      .selectFrom('orders')
      .select('status')
      .where('id', '=', gift.orderId)
      .executeTakeFirstOrThrow();
    expect(order.status).not.toBe('delivered');
  });
});
