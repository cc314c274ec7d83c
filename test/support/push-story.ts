import { afterAll, beforeAll, expect } from 'vitest';
import type { RunningWorkers } from '../../jobs/start-workers.ts';
import type { CarrierCode } from '../../src/carriers/carrier-code.ts';
import type { TestAccount, TestApp } from './test-app.ts';
import { startTestApp, validOrder } from './test-app.ts';
import { eventually, startTestWorkers } from './workers.ts';

/**
 * The push tests' app for the file: polling slowed to once a minute (so a delivery seen within
 * seconds can only have come by push), workers dispatching every 200 ms, one store account; stopped
 * after the file once the sandbox's pushes in flight have settled. `use` receives them.
 */
export function pushTestAppForFile(
  use: (started: { app: TestApp; workers: RunningWorkers; store: TestAccount }) => void,
  /** The app's settings, read when it starts (after the file's own beforeAll hooks registered before this). */
  env: () => Record<string, string> = () => ({}),
): void {
  let started: { app: TestApp; workers: RunningWorkers; store: TestAccount } | undefined;
  beforeAll(async () => {
    const app = await startTestApp({ sandboxPollIntervalMs: 60_000, env: env() });
    const workers = await startTestWorkers(app.services, { dispatchEveryMs: 200 });
    started = { app, workers, store: await app.createAccount() };
    use(started);
  });
  afterAll(async () => {
    await started?.workers.close();
    await started?.app.services.carrierSandbox?.state.push.settled();
    await started?.app.close();
  });
}

/**
 * What the carriers' push tests (UPS, USPS, FedEx) do alike, for one carrier on a test app: script
 * the sandbox's package, ship an order with the number, read its tracking row and the pushed events
 * stored for a number, and wait for the package's subscription.
 */
export function pushStory(app: () => TestApp, store: () => TestAccount, carrier: CarrierCode) {
  const db = () => app().services.database.db;
  const tracking = (orderId: string) =>
    db().selectFrom('trackings').selectAll().where('order_id', '=', orderId).executeTakeFirstOrThrow();
  return {
    async script(trackingNumber: string, body: Record<string, unknown>) {
      const response = await fetch(`${app().baseUrl}/sandbox/carriers/${carrier}/packages/${trackingNumber}/events`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(201);
    },
    async shippedOrder(trackingNumber: string) {
      const order = (await store().request('POST', '/v1/orders', validOrder)).body;
      const update = await store().request('PUT', `/v1/orders/${order.id}`, {
        carrier,
        tracking_number: trackingNumber,
      });
      expect(update.status).toBe(200);
      return order as { id: string };
    },
    tracking,
    subscribed: (orderId: string) =>
      eventually(
        async () => ((await tracking(orderId)).push_until ? true : undefined),
        15_000,
        'the push subscription',
      ),
    storedEvents: (trackingNumber: string) =>
      db().selectFrom('carrier_push_events').selectAll().where('tracking_number', '=', trackingNumber).execute(),
  };
}
