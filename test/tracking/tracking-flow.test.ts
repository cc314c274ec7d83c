import { describe, expect, it } from 'vitest';
import { validOrder, type TestAccount, type TestApp } from '../support/test-app.ts';
import { deliveredOrder, scriptPackage, trackingAppForFile } from './tracking-app.ts';

let app: TestApp;
let store: TestAccount;

trackingAppForFile((started) => ({ app, store } = started), { sandboxPollIntervalMs: 200 });

async function orderWithShipment(carrier: string, trackingNumber: string) {
  const order = (await store.request('POST', '/v1/orders', validOrder)).body;
  const update = await store.request('PUT', `/v1/orders/${order.id}`, { carrier, tracking_number: trackingNumber });
  expect(update.status).toBe(200);
  return update.body;
}

const untilDelivered = (id: string) => deliveredOrder(store, id, 20_000, `order ${id} to be delivered`);

/** A delivered order's tracking is done: stopped for the delivery, with no poll due. */
async function expectTrackingStoppedByDelivery(orderId: string) {
  const tracking = await app.services.database.db
    .selectFrom('trackings')
    .selectAll()
    .where('order_id', '=', orderId)
    .executeTakeFirstOrThrow();
  expect(tracking.next_poll_at).toBeNull();
  expect(tracking.stopped_reason).toBe('order_delivered');
}

describe('Standard Carrier Shipping, end to end on real Redis and the carrier sandboxes', () => {
  it('validates with the carrier: a number it does not know yet is stored with a warning', async () => {
    const update = await orderWithShipment('ups', '1Z5R89390357567127');
    expect(update.warning.message).toContain("not yet in UPS's system");
    expect(update.tracking_number).toBe('1Z5R89390357567127');
  });

  it('validates with the carrier: a number it knows gets no warning, whatever its format', async () => {
    await scriptPackage(app, 'fedex', 'SANDBOX-FEDEX-1', { status: 'pre_transit' });
    const update = await orderWithShipment('fedex', 'SANDBOX-FEDEX-1');
    expect(update.warning).toBeUndefined();
  });

  for (const [carrier, number] of [
    ['ups', '1Z879E930346834440'],
    ['fedex', '986578788855'],
    ['usps', '9400111899223817240935'],
  ] as const) {
    it(`delivers a ${carrier} order when the carrier reports delivery, with the carrier's delivery time`, async () => {
      const order = await orderWithShipment(carrier, number);
      await scriptPackage(app, carrier, number, {
        status: 'in_transit',
        at: new Date(Date.now() - 3_600_000).toISOString(),
      });
      await scriptPackage(app, carrier, number, {
        status: 'out_for_delivery',
        at: new Date(Date.now() - 600_000).toISOString(),
      });
      const deliveredAt = new Date(Date.now() - 90_000);
      deliveredAt.setUTCMilliseconds(0);
      await scriptPackage(app, carrier, number, { status: 'delivered', at: deliveredAt.toISOString() });

      const delivered = await untilDelivered(order.id);
      expect(delivered).toMatchObject({ delivered: '1', carrier, tracking_number: number });
      expect(delivered.delivered_at).toBe(deliveredAt.toISOString().replace('.000Z', 'Z'));

      const events = (await store.request('GET', `/v1/orders/${order.id}/events`)).body.data;
      const deliveredEvent = events.find((e: { type: string }) => e.type === 'order.delivered');
      expect(deliveredEvent).toMatchObject({ source: 'carrier', data: { carrier, tracking_number: number } });
      expect(
        events.some(
          (e: { type: string; data: { status?: string } }) =>
            e.type === 'tracking.status' && e.data.status === 'delivered',
        ),
      ).toBe(true);
      await expectTrackingStoppedByDelivery(order.id);
    });
  }

  it('rides out a 429 storm: delivery is delayed, never lost', async () => {
    const number = '477179081230';
    const order = await orderWithShipment('fedex', number);
    await fetch(`${app.baseUrl}/sandbox/carriers/fedex/faults`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ rate_limit: 4, retry_after_seconds: 1 }),
    });
    await scriptPackage(app, 'fedex', number, { status: 'delivered' });
    const delivered = await untilDelivered(order.id);
    expect(delivered.status).toBe('delivered');
    await fetch(`${app.baseUrl}/sandbox/carriers/fedex/faults`, { method: 'DELETE' });
  });

  it('stops tracking when the client marks the order delivered itself', async () => {
    const order = await orderWithShipment('usps', '9400111899223817240936');
    await store.request('PUT', `/v1/orders/${order.id}`, { delivered: 1 });
    await expectTrackingStoppedByDelivery(order.id);
  });

  it('re-tracks from scratch when the tracking number changes', async () => {
    const order = await orderWithShipment('ups', '1Z410E7W0392751591');
    await store.request('PUT', `/v1/orders/${order.id}`, { tracking_number: '1Z8V92A70367203024' });
    await scriptPackage(app, 'ups', '1Z8V92A70367203024', { status: 'delivered' });
    const delivered = await untilDelivered(order.id);
    expect(delivered.tracking_number).toBe('1Z8V92A70367203024');
  });
});
