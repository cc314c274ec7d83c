import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeShopifyId, fulfillmentPayload, randomUpsTrackingNumber } from '../../src/shopify/dev/webhook-payloads.ts';
import { TestClock } from '../support/clock.ts';
import { placeOneLineOrder, startShopifyTestApp, type ShopifyTestApp } from './harness.ts';

/**
 * A gift shipped in several boxes, tracked by the carrier (Shopify probe: the box tracked arrived
 * first and the video went while the other was still on its way). Signed webhooks into the real app,
 * the sandboxed UPS over HTTP, polled by the real poller on a test clock: the video goes when the last
 * box arrives, whichever the carrier delivers first.
 */
const HOUR = 3_600_000;
// Thursday 2026-12-03, 14:00 in New York: inside every US zone's polling hours.
const clock = new TestClock('2026-12-03T19:00:00Z');
let app: ShopifyTestApp;

beforeAll(async () => {
  app = await startShopifyTestApp({ now: clock.now, sandboxSchedule: 'carrier' });
});
afterAll(async () => {
  expect(await app.processingErrors()).toEqual([]);
  await app.close();
});

const db = () => app.services.database.db;
const iso = (offsetMs: number) => new Date(clock.now().getTime() + offsetMs).toISOString();
const order = (id: string) => db().selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const timeline = (orderId: string) =>
  db().selectFrom('order_events').select(['type', 'data']).where('order_id', '=', orderId).orderBy('id').execute();

let shops = 0;
/** A recorded Shopify gift (one line) whose boxes are the given fulfillments, each `[createdAt, numbers]`. */
async function giftInBoxes(boxes: Array<{ createdAt: string; numbers: string[] }>) {
  const shop = `split-${Date.now()}-${shops++}.myshopify.com`;
  await app.addShop(shop);
  const { shopifyOrderId, lineItemId } = await placeOneLineOrder(app, shop);
  const link = await db()
    .selectFrom('shopify_order_links')
    .select('order_id')
    .where('shop', '=', shop)
    .where('shopify_order_id', '=', String(shopifyOrderId))
    .executeTakeFirstOrThrow();
  await app.services.orders.markRecorded(link.order_id, { durationTenths: 50 });
  for (const box of boxes) {
    const payload = {
      ...fulfillmentPayload({
        id: fakeShopifyId(),
        orderId: shopifyOrderId,
        lineItemIds: [lineItemId],
        trackingCompany: 'UPS',
        trackingNumber: box.numbers[0]!,
        createdAt: box.createdAt,
        updatedAt: box.createdAt,
      }),
      tracking_numbers: box.numbers,
    };
    expect((await app.webhook(shop, 'fulfillments/create', payload)).status).toBe(200);
  }
  return link.order_id;
}

/** The sandboxed UPS says the number was delivered an hour ago; the poller asks it now. */
async function upsDelivers(trackingNumber: string): Promise<void> {
  const response = await fetch(`${app.baseUrl}/sandbox/carriers/ups/packages/${trackingNumber}/events`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ status: 'delivered', at: iso(-HOUR) }),
  });
  expect(response.status).toBeLessThan(300);
  await db().updateTable('trackings').set({ next_poll_at: clock.now() }).execute();
  for (const claim of await app.services.poller.claim('ups', 50))
    await app.services.poller.pollBatch('ups', claim.token);
}

describe('a gift in several boxes, tracked by the carrier', () => {
  it('the newer box arriving first sends nothing: tracking moves to the other, whose delivery delivers the order', async () => {
    const [older, newer] = [randomUpsTrackingNumber(), randomUpsTrackingNumber()];
    const orderId = await giftInBoxes([
      { createdAt: iso(-5 * HOUR), numbers: [older] },
      { createdAt: iso(-4 * HOUR), numbers: [newer] },
    ]);
    expect(await order(orderId)).toMatchObject({ tracking_number: newer, delivered: false });

    await upsDelivers(newer);
    expect(await order(orderId)).toMatchObject({ status: 'recorded', delivered: false, tracking_number: older });
    const arrived = (await timeline(orderId)).filter((entry) => entry.type === 'delivery.package_arrived');
    expect(arrived).toEqual([
      {
        type: 'delivery.package_arrived',
        data: {
          reason: "1 of the gift's 2 packages has arrived, and the video goes when the last one does",
        },
      },
    ]);
    // Asked again (a poll after a crash): counted once.
    await upsDelivers(newer);
    expect((await timeline(orderId)).filter((entry) => entry.type === 'delivery.package_arrived')).toHaveLength(1);

    await upsDelivers(older);
    expect(await order(orderId)).toMatchObject({ status: 'delivered', delivered: true });
  });

  it('one package with several boxes (numbers): each box is waited for', async () => {
    const [first, second] = [randomUpsTrackingNumber(), randomUpsTrackingNumber()];
    const orderId = await giftInBoxes([{ createdAt: iso(-4 * HOUR), numbers: [first, second] }]);
    // The last number of a fulfillment is tracked first.
    expect(await order(orderId)).toMatchObject({ tracking_number: second });

    await upsDelivers(second);
    expect(await order(orderId)).toMatchObject({ delivered: false, tracking_number: first });
    await upsDelivers(first);
    expect(await order(orderId)).toMatchObject({ delivered: true });
  });

  it('an order of one box is delivered by it at once, as before', async () => {
    const only = randomUpsTrackingNumber();
    const orderId = await giftInBoxes([{ createdAt: iso(-4 * HOUR), numbers: [only] }]);
    await upsDelivers(only);
    expect(await order(orderId)).toMatchObject({ delivered: true });
    expect((await timeline(orderId)).some((entry) => entry.type === 'delivery.package_arrived')).toBe(false);
  });
});
