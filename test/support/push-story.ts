import { afterAll, beforeAll, expect } from 'vitest';
import type { RunningWorkers } from '../../jobs/start-workers.ts';
import type { CarrierCode } from '../../src/carriers/carrier-code.ts';
import { PushSubscriptions } from '../../src/tracking/push-subscriptions.ts';
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
 * stored for a number, wait for the package's subscription, and see a scripted delivery arrive.
 */
export function pushStory(app: () => TestApp, store: () => TestAccount, carrier: CarrierCode) {
  const db = () => app().services.database.db;
  const tracking = (orderId: string) =>
    db().selectFrom('trackings').selectAll().where('order_id', '=', orderId).executeTakeFirstOrThrow();
  async function script(trackingNumber: string, body: Record<string, unknown>) {
    const response = await fetch(`${app().baseUrl}/sandbox/carriers/${carrier}/packages/${trackingNumber}/events`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(201);
  }
  /** `order` overrides fields of the valid order (e.g. the recipient's e-mail). */
  async function shippedOrder(trackingNumber: string, order: Record<string, unknown> = {}) {
    const created = (await store().request('POST', '/v1/orders', { ...validOrder, ...order })).body;
    const update = await store().request('PUT', `/v1/orders/${created.id}`, {
      carrier,
      tracking_number: trackingNumber,
    });
    expect(update.status).toBe(200);
    return created as { id: string; playback_url: string };
  }
  const subscribed = (orderId: string) =>
    eventually(async () => ((await tracking(orderId)).push_until ? true : undefined), 15_000, 'the push subscription');
  return {
    script,
    shippedOrder,
    tracking,
    subscribed,
    storedEvents: (trackingNumber: string) =>
      db().selectFrom('carrier_push_events').selectAll().where('tracking_number', '=', trackingNumber).execute(),
    /**
     * Ships an order with the number and waits for its subscription, then scripts its delivery (5 s
     * ago, in whole seconds) and waits for the order's tracking to say delivered. Returns the order,
     * the delivery time and when it was scripted, for the test to judge how it came.
     */
    async deliveredByPush(trackingNumber: string) {
      const order = await shippedOrder(trackingNumber);
      await subscribed(order.id);
      const deliveredAt = new Date(Date.now() - 5_000);
      deliveredAt.setUTCMilliseconds(0);
      const scriptedAt = Date.now();
      await script(trackingNumber, { status: 'delivered', at: deliveredAt.toISOString() });
      await eventually(
        async () => ((await tracking(order.id)).status === 'delivered' ? true : undefined),
        15_000,
        'the pushed delivery',
      );
      return { order, deliveredAt, scriptedAt };
    },
  };
}

/** A webhook's refusal of a push it cannot trust: 401 with a JSON error message; `name` says which case it was. */
export async function expectRefusedPush(response: Response, name: string): Promise<void> {
  expect(response.status, name).toBe(401);
  expect(response.headers.get('content-type'), name).toContain('application/json');
  const body = (await response.json()) as { error?: { message?: string } };
  expect(body.error?.message, name).toBeTruthy();
}

/**
 * The app's push subscriptions for one carrier on a clock stopped at `at`, so a test can run a
 * step (a retry, a renewal) that falls due long after now.
 */
export function pushSubscriptionsAt(app: TestApp, carrier: CarrierCode, at: Date): PushSubscriptions {
  return new PushSubscriptions({
    db: app.services.database.db,
    clients: app.services.carriers,
    enabled: [carrier],
    logger: app.services.logger,
    now: () => at,
  });
}
