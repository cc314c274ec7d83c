import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatVerifier } from '../../src/carriers/format-verifier.ts';
import { createLogger } from '../../src/logger.ts';
import { recipientVideoInProgress, recipientVideoLeft } from '../../src/notifications/sends.ts';
import { OrderOutbox } from '../../src/orders/outbox.ts';
import { OrderService } from '../../src/orders/service.ts';
import { DeliveryHoursCache, readSlotCounts } from '../../src/tracking/delivery-hours-store.ts';
import { trackingState, trackingSubscriber } from '../../src/tracking/trackings.ts';
import { TestClock } from '../support/clock.ts';
import { startTestApp, validOrder, type TestAccount, type TestApp } from '../support/test-app.ts';

// The poller without queues: claim and poll by hand under a test clock, against the real sandbox.
let app: TestApp;
let store: TestAccount;
const clock = new TestClock('2026-12-01T15:00:00Z');

beforeAll(async () => {
  app = await startTestApp({ now: clock.now, sandboxPollIntervalMs: 1_000 });
  store = await app.createAccount();
});
afterAll(() => app.close());

const db = () => app.services.database.db;
const tracking = (orderId: string) =>
  db().selectFrom('trackings').selectAll().where('order_id', '=', orderId).executeTakeFirstOrThrow();
const timeline = async (orderId: string): Promise<Array<{ type: string; data: Record<string, string> }>> =>
  (await store.request('GET', `/v1/orders/${orderId}/events`)).body.data;

async function sandbox(path: string, body: unknown, method = 'POST') {
  await fetch(`${app.baseUrl}/sandbox/carriers/${path}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function tracked(carrier: 'ups' | 'fedex' | 'usps', number: string) {
  const order = (await store.request('POST', '/v1/orders', validOrder)).body;
  await store.request('PUT', `/v1/orders/${order.id}`, { carrier, tracking_number: number });
  return order.id as string;
}

/** Advances past the demo interval and runs one claim + poll round for the carrier. */
async function pollRound(carrier: 'ups' | 'fedex' | 'usps') {
  clock.advance(1_500);
  for (const claim of await app.services.poller.claim(carrier, 10))
    await app.services.poller.pollBatch(carrier, claim.token);
}

describe('TrackingPoller', () => {
  it('learns the destination time zone from what the carrier says, and the schedule keeps its hours', async () => {
    const id = await tracked('fedex', '794644790138');
    expect((await tracking(id)).destination_time_zone).toBeNull();
    await sandbox('fedex/packages/794644790138/events', { status: 'in_transit', at: clock.now().toISOString() });
    await pollRound('fedex');
    // Every sandbox package goes to Wayne, NJ (recipientInformation.address).
    const row = await tracking(id);
    expect(row.destination_time_zone).toBe('America/New_York');
    // December: Eastern standard time.
    expect(trackingState(row, clock.now()).utcOffsetMinutes).toBe(-300);
  });

  it("counts a delivery after the out-for-delivery scan in its carrier's local delivery hours", async () => {
    const before = await readSlotCounts(db(), 'fedex');
    const id = await tracked('fedex', '012301230123');
    await sandbox('fedex/packages/012301230123/events', { status: 'out_for_delivery', at: clock.now().toISOString() });
    await pollRound('fedex');
    expect((await tracking(id)).status).toBe('out_for_delivery');
    // 15:40 UTC in December is 10:40 in Wayne, NJ (EST): slot 42 (10:30–10:45).
    await sandbox('fedex/packages/012301230123/events', { status: 'delivered', at: '2026-12-01T15:40:00Z' });
    await pollRound('fedex');
    expect((await tracking(id)).status).toBe('delivered');
    const after = await readSlotCounts(db(), 'fedex');
    expect(after.delivery[42]! - before.delivery[42]!).toBe(1);
    const sum = (counts: number[]) => counts.reduce((a, b) => a + b, 0);
    expect(sum(after.delivery) - sum(before.delivery)).toBe(1);
    expect(sum(after.pickup)).toBe(sum(before.pickup));
    const learned = await new DeliveryHoursCache(db()).get('fedex', clock.now());
    expect(learned.delivery.observed).toBeGreaterThanOrEqual(1);
  });

  it("counts a collection from a pickup point in its carrier's pickup hours, not in its delivery rounds", async () => {
    const before = await readSlotCounts(db(), 'fedex');
    await tracked('fedex', '012301230130');
    await sandbox('fedex/packages/012301230130/events', {
      status: 'available_for_pickup',
      at: clock.now().toISOString(),
    });
    await pollRound('fedex');
    // 21:10 UTC is 16:10 EST: slot 64 (16:00–16:15).
    await sandbox('fedex/packages/012301230130/events', { status: 'delivered', at: '2026-12-01T21:10:00Z' });
    await pollRound('fedex');
    const after = await readSlotCounts(db(), 'fedex');
    expect(after.pickup[64]! - before.pickup[64]!).toBe(1);
    expect(after.delivery).toEqual(before.delivery);
  });

  it("records a delivery the carrier dates in the future as delivered now (the order's month must not lie ahead)", async () => {
    const id = await tracked('fedex', '012301230147');
    await sandbox('fedex/packages/012301230147/events', { status: 'delivered', at: '2027-12-12T17:00:00Z' });
    await pollRound('fedex');
    const order = (await store.request('GET', `/v1/orders/${id}`)).body;
    expect(order.delivered).toBe('1');
    // The timeline's scan is not dated ahead either (tracking probe).
    const scan = (await timeline(id)).find((e) => e.type === 'tracking.status');
    expect(new Date(scan!.data.at!).getTime()).toBeLessThanOrEqual(clock.now().getTime());
    expect(order.delivered_at).toBe(
      clock
        .now()
        .toISOString()
        .replace(/\.\d{3}Z$/, 'Z'),
    );
  });

  it('stops with a visible reason when the package goes back to the sender', async () => {
    const id = await tracked('ups', '1Z5R89390357567127');
    await sandbox('ups/packages/1Z5R89390357567127/events', {
      status: 'return_to_sender',
      at: clock.now().toISOString(),
    });
    await pollRound('ups');
    expect((await tracking(id)).next_poll_at).toBeNull();
    const stop = (await timeline(id)).find((e) => e.type === 'tracking.stopped');
    expect(stop?.data.message).toMatch(/returning the package/);
  });

  it('expires after 30 days without news, saying the video will not send on its own', async () => {
    const id = await tracked('usps', '9400111899223817240111');
    await pollRound('usps');
    clock.advance(31 * 24 * 3_600_000);
    await pollRound('usps');
    expect((await tracking(id)).stopped_reason).toBe('expired');
    expect((await timeline(id)).find((e) => e.type === 'tracking.stopped')?.data.message).toMatch(/30 days/);
  });

  it('writes a timeline line after three carrier failures in a row, and keeps tracking', async () => {
    const id = await tracked('fedex', '799531274483');
    await sandbox('fedex/faults', { server_error: 3 });
    for (let i = 0; i < 3; i++) {
      clock.advance(3 * 3_600_000);
      await pollRound('fedex');
    }
    expect((await timeline(id)).some((e) => e.type === 'tracking.carrier_unavailable')).toBe(true);
    const row = await tracking(id);
    expect(row.consecutive_errors).toBe(3);
    expect(row.next_poll_at).not.toBeNull();
  });

  it('says once on the timeline when the carrier has kept asking us to wait for hours (tracking probe: never said)', async () => {
    const id = await tracked('fedex', '797843158312');
    // A second's Retry-After: our budget then holds FedEx for a real second too (the next rounds are
    // our own hold, the same wait), while the test clock moves an hour a round.
    await sandbox('fedex/faults', { rate_limit: 20, retry_after_seconds: 1 });
    for (let i = 0; i < 9; i++) {
      clock.advance(3_600_000 + 60_000);
      await pollRound('fedex');
    }
    await sandbox('fedex/faults', { rate_limit: 0 });
    const lines = (await timeline(id)).filter((e) => e.type === 'tracking.carrier_unavailable');
    expect(lines.map((line) => line.data.message)).toEqual([
      "FedEx's rate limits have kept Doorstep from asking about this package for 6 hours; its news may be late. Doorstep asks again as soon as FedEx lets it.",
    ]);
    const waiting = await tracking(id);
    expect(waiting.rate_limited_since).not.toBeNull();
    expect(waiting.next_poll_at).not.toBeNull();
    // An answer ends the wait.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    clock.advance(3_600_000 + 60_000);
    await pollRound('fedex');
    expect((await tracking(id)).rate_limited_since).toBeNull();
  });

  it('says so when the carrier refuses our credentials, rather than that it did not answer (tracking probe)', async () => {
    const id = await tracked('fedex', '797843158299');
    // Each look asks twice: the 401, then again with a fresh token, which is refused too.
    await sandbox('fedex/faults', { unauthorized: 6 });
    for (let i = 0; i < 3; i++) {
      clock.advance(3 * 3_600_000);
      await pollRound('fedex');
    }
    const line = (await timeline(id)).find((e) => e.type === 'tracking.carrier_unavailable');
    expect(line?.data.message).toBe(
      "FedEx refused Doorstep's credentials 3 times in a row; retrying with backoff. Doorstep's FedEx settings need checking by its operator (the error log says so).",
    );
    expect((await tracking(id)).next_poll_at).not.toBeNull();
  });

  it('never drops a delivery the order has not recorded yet, even if the carrier then fails', async () => {
    const id = await tracked('fedex', '790535312317');
    // As if a crash hit between saving the carrier's "delivered" and marking the order delivered.
    await db().updateTable('trackings').set({ status: 'delivered' }).where('order_id', '=', id).execute();
    await sandbox('fedex/faults', { server_error: 1 });
    await pollRound('fedex');
    expect((await tracking(id)).next_poll_at).not.toBeNull();
    await sandbox('fedex/packages/790535312317/events', { status: 'delivered', at: clock.now().toISOString() });
    clock.advance(60_000);
    await pollRound('fedex');
    expect((await store.request('GET', `/v1/orders/${id}`)).body.status).toBe('delivered');
  });

  it('ignores an answer for a tracking number that changed while the call was in flight', async () => {
    const id = await tracked('ups', '1Z879E930346834440');
    await sandbox('ups/packages/1Z879E930346834440/events', { status: 'delivered', at: clock.now().toISOString() });
    clock.advance(1_500);
    const [claim] = await app.services.poller.claim('ups', 10);
    await store.request('PUT', `/v1/orders/${id}`, { tracking_number: '1Z410E7W0392751591' });
    await app.services.poller.pollBatch('ups', claim!.token);
    const order = (await store.request('GET', `/v1/orders/${id}`)).body;
    expect(order.status).not.toBe('delivered');
    expect((await tracking(id)).tracking_number).toBe('1Z410E7W0392751591');
  });

  it('does not deliver on an answer about a number the order no longer ships with, before tracking catches up', async () => {
    // A number of its own: the sandbox keeps each number's history for the file (another test returned 1Z5R…).
    const id = await tracked('ups', '1Z8V92A70367203024');
    await sandbox('ups/packages/1Z8V92A70367203024/events', { status: 'delivered', at: clock.now().toISOString() });
    // The number is corrected by a process that died before handing the change to tracking: the
    // order ships with the new number while tracking still polls the old one.
    class DiesAfterCommit extends OrderOutbox {
      override async deliver(): Promise<void> {}
    }
    const outbox = new DiesAfterCommit({ db: db(), logger: createLogger('silent'), now: clock.now });
    outbox.subscribe(trackingSubscriber({ now: clock.now, schedules: { ups: {}, fedex: {}, usps: {} } }));
    const other = new OrderService({
      db: db(),
      verifier: formatVerifier,
      outbox,
      sendInProgress: recipientVideoInProgress,
      recipientVideoLeft,
      now: clock.now,
    });
    await other.update(store.id, id, { tracking_number: '1ZXX3150YW44070023' });
    expect((await tracking(id)).tracking_number).toBe('1Z8V92A70367203024');

    await pollRound('ups');
    const order = (await store.request('GET', `/v1/orders/${id}`)).body;
    expect(order.status).not.toBe('delivered');
    expect((await timeline(id)).find((event) => event.type === 'delivery.signal_ignored')?.data.reason).toBe(
      'the order now ships with another tracking number',
    );
  });
});

describe('batchesWithinLease', () => {
  it('lets a claim hand out only what the carrier budget runs within the lease', async () => {
    const { batchesWithinLease } = await import('../../src/tracking/poller.ts');
    const { CARRIER_BUDGETS } = await import('../../src/carriers/budget.ts');
    expect(batchesWithinLease(CARRIER_BUDGETS.usps)).toBe(10);
    expect(batchesWithinLease(CARRIER_BUDGETS.fedex)).toBe(200);
    expect(batchesWithinLease({ max: 1, durationMs: 86_400_000 })).toBe(1);
  });
});
