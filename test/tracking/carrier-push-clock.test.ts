import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../support/clock.ts';
import { startTestApp, validOrder, type TestAccount, type TestApp } from '../support/test-app.ts';

/**
 * Push subscriptions and the schedule over days, on a test clock and without workers: each step
 * (subscribe, poll) is run by hand, on the real database and the real sandboxed UPS over HTTP.
 */
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let app: TestApp;
let store: TestAccount;
const clock = new TestClock('2026-12-01T15:00:00Z');

beforeAll(async () => {
  app = await startTestApp({ now: clock.now });
  store = await app.createAccount();
});
afterAll(async () => {
  await app.services.carrierSandbox?.state.push.settled();
  await app.close();
});

const stats = () => app.services.carrierSandbox!.state.carriers.ups.stats;
const tracking = (orderId: string) =>
  app.services.database.db
    .selectFrom('trackings')
    .selectAll()
    .where('order_id', '=', orderId)
    .executeTakeFirstOrThrow();

async function shippedOrder(trackingNumber: string) {
  const order = (await store.request('POST', '/v1/orders', validOrder)).body;
  expect(
    (await store.request('PUT', `/v1/orders/${order.id}`, { carrier: 'ups', tracking_number: trackingNumber })).status,
  ).toBe(200);
  return order.id as string;
}

/** POSTs to the sandboxed UPS's control API (package events, faults). */
async function sandbox(path: string, body: unknown): Promise<void> {
  await fetch(`${app.baseUrl}/sandbox/carriers/ups/${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function pollDue(): Promise<number> {
  let polled = 0;
  for (const claim of await app.services.poller.claim('ups', 10))
    polled += (await app.services.poller.pollBatch('ups', claim.token)).polled;
  return polled;
}

describe('UPS Track Alert over days (test clock)', () => {
  it('subscribes once, renews a day before the 14 days lapse, and not before', async () => {
    const orderId = await shippedOrder('1Z879E930346834446');
    const calls = stats().subscribeCalls;
    expect(await app.services.push.subscriptions.subscribeDue('ups')).toBe(1);
    const first = await tracking(orderId);
    expect(first.push_until).toEqual(new Date(clock.now().getTime() + 14 * DAY));
    expect(stats().subscribeCalls).toBe(calls + 1);

    clock.advance(12 * DAY);
    expect(await app.services.push.subscriptions.subscribeDue('ups')).toBe(0);
    expect(stats().subscribeCalls).toBe(calls + 1);

    clock.advance(DAY + 60_000);
    expect(await app.services.push.subscriptions.subscribeDue('ups')).toBe(1);
    expect(stats().subscribeCalls).toBe(calls + 2);
    const renewed = await tracking(orderId);
    expect(renewed.push_until).toEqual(new Date(clock.now().getTime() + 14 * DAY));
    expect(renewed.push_until!.getTime()).toBeGreaterThan(first.push_until!.getTime());
  });

  it('batches up to 100 numbers in one subscription call; numbers Track Alert does not take are left to polling', async () => {
    await shippedOrder('1Z879E930346834447');
    await shippedOrder('1Z879E930346834448');
    const imb = await shippedOrder('9400111899223817240935');
    const calls = stats().subscribeCalls;
    expect(await app.services.push.subscriptions.subscribeDue('ups')).toBe(2);
    expect(stats().subscribeCalls).toBe(calls + 1);
    expect((await tracking(imb)).push_until).toBeNull();
  });

  it('polls sparsely while the subscription is live, and falls back to the adaptive schedule when it goes silent', async () => {
    const number = '1Z879E930346834449';
    await sandbox(`packages/${number}/events`, { status: 'in_transit' });
    const orderId = await shippedOrder(number);
    await app.services.push.subscriptions.subscribeDue('ups');
    const subscribedAt = clock.now().getTime();

    // The PUT's validation was the first look (the history Track Alert does not keep). The next look,
    // where the adaptive schedule placed it, covers the moments before the subscription and lands
    // under a live subscription: the one after it is 8 h away.
    let row = await tracking(orderId);
    expect(row.poll_count).toBe(1);
    expect(row.next_poll_at!.getTime()).toBeGreaterThanOrEqual(subscribedAt);
    clock.set(row.next_poll_at!);
    expect(await pollDue()).toBeGreaterThanOrEqual(1);
    row = await tracking(orderId);
    expect(row.status).toBe('in_transit');
    expect(row.next_poll_at).toEqual(new Date(clock.now().getTime() + 8 * HOUR));

    // The confirmation look: no push for 8 h yet, the next look is when it would count as silent (12 h).
    clock.set(row.next_poll_at!);
    await pollDue();
    row = await tracking(orderId);
    expect(row.next_poll_at).toEqual(new Date(subscribedAt + 12 * HOUR));

    // 12 h without a push while moving: dead. The sandbox's demo schedule (5 s) takes over again.
    clock.set(row.next_poll_at!);
    await pollDue();
    row = await tracking(orderId);
    expect(row.next_poll_at!.getTime() - clock.now().getTime()).toBeLessThanOrEqual(5_000);
  });

  it('a look that fails right after subscribing does not stretch the schedule (npm run soak found it)', async () => {
    const number = '1Z879E930346834450';
    await sandbox(`packages/${number}/events`, { status: 'in_transit' });
    const orderId = await shippedOrder(number);
    await app.services.push.subscriptions.subscribeDue('ups');
    // Every request of this round fails (earlier tests' packages may be due too).
    await sandbox('faults', { server_error: 20 });
    clock.set((await tracking(orderId)).next_poll_at!);
    await pollDue();
    await sandbox('faults', { server_error: 0 });
    const row = await tracking(orderId);
    expect(row.consecutive_errors).toBe(1);
    // Nothing heard since the subscription began: a delivery before it would never be pushed, so the
    // failed look is retried on the adaptive schedule's terms (the sandbox's 5 s), not 8 h later.
    expect(row.next_poll_at!.getTime() - clock.now().getTime()).toBeLessThanOrEqual(5 * 60_000);
  });
});
