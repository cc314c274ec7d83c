import { describe, expect, it } from 'vitest';
import type { CarrierLook } from '../../src/orders/order-events.ts';
import { nextPoll } from '../../src/tracking/schedule.ts';
import { firstLookState, firstSchedule } from '../../src/tracking/trackings.ts';
import { validOrder, type TestAccount, type TestApp } from '../support/test-app.ts';
import { eventually } from '../support/workers.ts';
import { deliveredOrder, scriptPackage, trackingAppForFile } from './tracking-app.ts';

/** The sandbox's poll cadence here: long enough to tell "the next scheduled look" from "at once". */
const POLL_INTERVAL_MS = 2_000;

let app: TestApp;
let store: TestAccount;

trackingAppForFile((started) => ({ app, store } = started), { sandboxPollIntervalMs: POLL_INTERVAL_MS });

async function trackCalls(carrier: string): Promise<number> {
  const response = await fetch(`${app.baseUrl}/sandbox/carriers/${carrier}/stats`);
  return ((await response.json()) as { track_calls: number }).track_calls;
}

const tracking = (orderId: string) =>
  app.services.database.db.selectFrom('trackings').selectAll().where('order_id', '=', orderId).executeTakeFirst();

describe('a new number costs one carrier call, not two', () => {
  for (const [carrier, number, seeded] of [
    ['fedex', '797843158299', 'in_transit'],
    ['usps', '9400111899223817240941', null],
  ] as const) {
    it(`${carrier}, ${seeded ?? 'a number the carrier does not know yet'}: the validation is the first poll and sets the schedule`, async () => {
      if (seeded) {
        const seededResponse = await fetch(`${app.baseUrl}/sandbox/carriers/${carrier}/packages/${number}/events`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ status: seeded }),
        });
        expect(seededResponse.status).toBe(201);
      }
      const order = (await store.request('POST', '/v1/orders', validOrder)).body;
      const before = await trackCalls(carrier);
      const update = await store.request('PUT', `/v1/orders/${order.id}`, { carrier, tracking_number: number });
      expect(update.status).toBe(200);

      // The package is tracked from the validation's answer: one look taken, the next one scheduled from it.
      const first = await eventually(async () => tracking(order.id), 5_000, 'the tracking row');
      expect(await trackCalls(carrier)).toBe(before + 1);
      expect(first.poll_count).toBe(1);
      expect(first.status).toBe(seeded ?? 'not_found');
      // A found package's look names its destination (the sandbox's: Wayne, NJ), so its hours are known
      // from the first look on; an unknown number says nothing about where it goes.
      expect(first.destination_time_zone).toBe(seeded ? 'America/New_York' : null);
      expect(first.last_polled_at).not.toBeNull();
      expect(first.next_poll_at!.getTime()).toBeGreaterThanOrEqual(first.last_polled_at!.getTime() + POLL_INTERVAL_MS);
      const events = (await store.request('GET', `/v1/orders/${order.id}/events`)).body.data;
      expect(events).toContainEqual(
        expect.objectContaining({
          type: 'tracking.status',
          source: 'carrier',
          data: expect.objectContaining({ carrier, status: first.status }),
        }),
      );

      // The poller's first own look comes at that time, not before: still one call until then.
      const second = await eventually(
        async () => {
          const row = await tracking(order.id);
          return row && row.poll_count >= 2 ? row : undefined;
        },
        15_000,
        'the next scheduled look',
      );
      expect(second.last_polled_at!.getTime()).toBeGreaterThanOrEqual(first.next_poll_at!.getTime());
      expect(await trackCalls(carrier)).toBe(before + 2);
    });
  }

  it('a package the carrier already calls delivered is handed to the poller at once, which delivers the order', async () => {
    const number = '1Z879E930346834458';
    await scriptPackage(app, 'ups', number, { status: 'delivered' });
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    await store.request('PUT', `/v1/orders/${order.id}`, { carrier: 'ups', tracking_number: number });
    const delivered = await deliveredOrder(store, order.id, 15_000, 'the order delivered');
    expect(delivered.delivered).toBe('1');
  });

  it('an earlier shipment’s delivery under a reused or mistyped number does not send the video; this gift’s delivery does (API probe: "delivered 2020-01-01" sent it at once)', async () => {
    const number = '1Z999AA10123456784';
    await scriptPackage(app, 'ups', number, { status: 'delivered', at: '2020-01-01T15:00:00Z' });
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    await store.request('PUT', `/v1/orders/${order.id}`, { carrier: 'ups', tracking_number: number });

    // The poller looks at once (a delivered first look) and reads it as this package not scanned yet.
    const held = await eventually(
      async () => {
        const row = await tracking(order.id);
        return row?.status === 'not_found' ? row : undefined;
      },
      15_000,
      'the old delivery read as not this package',
    );
    expect(held.next_poll_at).not.toBeNull();
    expect(held.delivered_at).toBeNull();
    const events = (await store.request('GET', `/v1/orders/${order.id}/events`)).body.data as Array<{
      type: string;
      data: Record<string, unknown>;
    }>;
    const why = events.find((event) => event.type === 'tracking.status' && event.data.status === 'not_found');
    expect(why?.data.description).toMatch(/dated 2020-01-01, before this order was placed/);
    expect(events.some((event) => event.type === 'order.delivered')).toBe(false);
    expect((await store.request('GET', `/v1/orders/${order.id}`)).body.delivered).toBe('0');

    // The number's new label is scanned, then delivered: that delivery is this gift's.
    await scriptPackage(app, 'ups', number, { status: 'in_transit' });
    await scriptPackage(app, 'ups', number, { status: 'delivered' });
    const delivered = await deliveredOrder(store, order.id, 20_000, 'this gift delivered');
    expect(delivered.delivered).toBe('1');
  });
});

describe('the validation warning', () => {
  it('says a number the carrier’s API cannot take is not asked, rather than that the carrier does not know it (API probe)', async () => {
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    const response = await store.request('PUT', `/v1/orders/${order.id}`, {
      carrier: 'ups',
      tracking_number: 'ABCDEF',
    });
    expect(response.status).toBe(200);
    expect(response.body.warning.message).toContain('UPS tracks numbers of 7 to 34 characters');
    expect(response.body.warning.message).toContain('not asked');
    expect(response.body.warning.message).not.toContain('does not know it either');
  });
});

describe('firstLookState (pure)', () => {
  const look = (over: Partial<CarrierLook> = {}): CarrierLook => ({
    at: '2026-03-02T15:00:00.000Z',
    status: 'in_transit',
    description: 'In transit',
    delivered_at: null,
    estimated_delivery_at: '2026-03-06T23:59:59.000Z',
    estimated_window_start_at: null,
    last_event_at: '2026-03-02T14:00:00.000Z',
    ...over,
  });
  const startedAt = new Date('2026-03-02T15:00:01.000Z');

  it('is the state a poll at the validation time would have left', () => {
    expect(firstLookState(look(), startedAt)).toMatchObject({
      status: 'in_transit',
      startedAt,
      lastPolledAt: new Date('2026-03-02T15:00:00.000Z'),
      lastChangedAt: new Date('2026-03-02T15:00:00.000Z'),
      estimatedDeliveryAt: new Date('2026-03-06T23:59:59.000Z'),
      consecutiveErrors: 0,
    });
  });

  it('lets the carrier schedule skip the days before the estimate instead of looking again within the half hour', () => {
    const state = firstLookState(look(), startedAt)!;
    const decision = nextPoll(state, startedAt);
    expect(decision.kind).toBe('poll');
    // Since issue 30 a package in transit is looked at each morning and evening (early deliveries), not
    // left until the day before the estimate: the next look is the next of those, not within the half hour.
    if (decision.kind === 'poll') expect(decision.at.getTime() - startedAt.getTime()).toBeGreaterThan(30 * 60_000);
  });

  it('is no state for a package already delivered or returned: the poller must act on those', () => {
    expect(
      firstLookState(look({ status: 'delivered', delivered_at: '2026-03-02T13:00:00.000Z' }), startedAt),
    ).toBeNull();
    expect(firstLookState(look({ status: 'return_to_sender' }), startedAt)).toBeNull();
  });

  it('a delivered or returned look is polled at once, not at the carrier schedule’s first look on its grid (probe finding: 18 min)', () => {
    // 15:00:01 is off the 30-minute grid: a first look without an answer waits for 15:30.
    expect(firstSchedule(null, startedAt, {}).nextPollAt).toEqual(new Date('2026-03-02T15:30:00.000Z'));
    const delivered = look({ status: 'delivered', delivered_at: '2026-03-02T13:00:00.000Z' });
    expect(firstSchedule(delivered, startedAt, {}).nextPollAt).toEqual(startedAt);
    expect(firstSchedule(look({ status: 'return_to_sender' }), startedAt, {}).nextPollAt).toEqual(startedAt);
    // A package on its way keeps the schedule's own next look.
    expect(firstSchedule(look(), startedAt, {}).nextPollAt!.getTime()).toBeGreaterThan(startedAt.getTime());
  });
});
