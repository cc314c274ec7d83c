import { expect, it } from 'vitest';
import { validOrder, type TestAccount, type TestApp } from '../support/test-app.ts';
import { eventually } from '../support/workers.ts';
import { deliveredOrder, trackingAppForFile } from './tracking-app.ts';

// Polling spends the same budget as validation (src/carriers/quota.ts): the real workers on real
// Redis, a USPS budget of one call per 4 s, and the sandbox counting what reaches it.
let app: TestApp;
let store: TestAccount;

trackingAppForFile((started) => ({ app, store } = started), {
  // Polling only: a pushed delivery (USPS Subscriptions-Tracking) would need no poll at all.
  env: { USPS_QUOTA: '1/4s', USPS_PUSH: 'off' },
  sandboxPollIntervalMs: 200,
});

const NUMBER = '9400111899223817240140';

async function sandbox(method: string, path: string, body?: unknown) {
  const response = await fetch(`${app.baseUrl}/sandbox/carriers/usps/${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return (await response.json()) as Record<string, number>;
}

const trackCalls = async () => (await sandbox('GET', 'stats'))['track_calls'];

it('a due poll with the budget spent does not call the carrier; the package is polled once the window passes', async () => {
  await sandbox('POST', `packages/${NUMBER}/events`, { status: 'in_transit' });
  const order = (await store.request('POST', '/v1/orders', validOrder)).body;
  // Validation spends the window's one call; the package is due for its first poll 200 ms later.
  const update = await store.request('PUT', `/v1/orders/${order.id}`, { carrier: 'usps', tracking_number: NUMBER });
  expect(update.body.warning).toBeUndefined();
  expect(await trackCalls()).toBe(1);

  const tracking = () =>
    app.services.database.db
      .selectFrom('trackings')
      .selectAll()
      .where('order_id', '=', order.id)
      .executeTakeFirstOrThrow();
  // The poll comes due, is held back by the budget, and waits in PostgreSQL for the window to end.
  const held = await eventually(
    async () => ((await tracking()).rate_limited_until ? tracking() : undefined),
    10_000,
    'the poll to be held back',
  );
  expect(await trackCalls()).toBe(1);
  expect(held.rate_limited_until!.getTime()).toBeGreaterThan(Date.now() - 1_000);
  expect(held.next_poll_at!.getTime()).toBeGreaterThanOrEqual(held.rate_limited_until!.getTime());
  // Our own budget is not the carrier failing: no error count, no "did not answer" on the timeline.
  expect(held.consecutive_errors).toBe(0);

  await sandbox('POST', `packages/${NUMBER}/events`, { status: 'delivered' });
  const delivered = await deliveredOrder(store, order.id, 20_000, 'the poll after the window to deliver the order');
  expect(delivered.delivered).toBe('1');
  // Exactly one poll reached USPS: the held-back ones never left the process.
  expect(await trackCalls()).toBe(2);
  const events = (await store.request('GET', `/v1/orders/${order.id}/events`)).body.data as Array<{ type: string }>;
  expect(events.some((e) => e.type === 'tracking.carrier_unavailable')).toBe(false);
});
