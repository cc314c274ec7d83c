import { describe, expect, it } from 'vitest';
import { formatVerifier } from '../../src/carriers/format-verifier.ts';
import { createLogger } from '../../src/logger.ts';
import { notificationsSubscriber } from '../../src/notifications/order-subscriber.ts';
import { recipientVideoInProgress, recipientVideoLeft } from '../../src/notifications/sends.ts';
import type { DeliveredOrderEvent, OrderEventSubscriber } from '../../src/orders/order-events.ts';
import { OrderOutbox, outboxRetryDelayMs } from '../../src/orders/outbox.ts';
import { OrderService } from '../../src/orders/service.ts';
import { TestClock } from '../support/clock.ts';
import { validOrder, type TestAccount, type TestApp } from '../support/test-app.ts';
import { orderTestAppForFile } from './order-test-app.ts';

let app: TestApp;
let store: TestAccount;
const clock = new TestClock();

orderTestAppForFile((started) => ({ app, store } = started), clock);

/** A subscriber of the test's own: records what it was handed, and fails while `failures` > 0. */
function probe(name: string, events: OrderEventSubscriber['events']) {
  const seen: DeliveredOrderEvent[] = [];
  const state = { failures: 0 };
  const subscriber: OrderEventSubscriber = {
    name,
    events,
    async handle(_trx, _order, delivered) {
      if (state.failures > 0) {
        state.failures--;
        throw new Error('subscriber is down');
      }
      seen.push(delivered);
    },
  };
  app.services.orderOutbox.subscribe(subscriber);
  return { seen, state };
}

const waitingFor = async (orderId: string) =>
  (await app.services.orderOutbox.waiting(1_000)).filter((row) => row.order_id === orderId);

describe('order events', () => {
  it('reach each subscriber once, right after the change commits, typed and in order', async () => {
    const { seen } = probe('probe-order', ['order.created', 'order.shipment_set', 'order.delivered', 'order.updated']);
    const order = (
      await store.request('POST', '/v1/orders', {
        ...validOrder,
        carrier: 'ups',
        tracking_number: '1Z5R89390357567127',
      })
    ).body;
    await store.request('PUT', `/v1/orders/${order.id}`, { price: 550 });
    await store.request('PUT', `/v1/orders/${order.id}`, { delivered: 1 });

    const mine = seen.filter((event) => event.orderId === order.id);
    expect(mine.map((event) => event.event)).toEqual([
      { type: 'order.created' },
      { type: 'order.shipment_set', carrier: 'ups', tracking_number: '1Z5R89390357567127' },
      { type: 'order.updated', fields: ['price'] },
      { type: 'order.delivered', delivered_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
    ]);
    expect(mine.every((event) => event.source === 'api' && event.accountId === store.id)).toBe(true);
    expect(mine.map((event) => event.seq)).toEqual([...mine.map((event) => event.seq)].sort((a, b) => a - b));
    expect(await waitingFor(order.id)).toEqual([]);
  });

  it('are not written when the change is refused', async () => {
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    await store.request('PUT', `/v1/orders/${order.id}`, { delivered: 1 });
    const before = await app.services.database.db
      .selectFrom('order_outbox')
      .select('seq')
      .where('order_id', '=', order.id)
      .execute();
    // A delivered order's shipment can no longer change: 409, and nothing reaches any subscriber.
    expect(
      (await store.request('PUT', `/v1/orders/${order.id}`, { carrier: 'ups', tracking_number: '1Z5R89390357567127' }))
        .status,
    ).toBe(409);
    const after = await app.services.database.db
      .selectFrom('order_outbox')
      .select('seq')
      .where('order_id', '=', order.id)
      .execute();
    expect(after).toEqual(before);
  });

  it('wait for a failing subscriber, in order, without failing the change, and are retried with backoff', async () => {
    const { seen, state } = probe('probe-failing', ['order.updated']);
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    state.failures = 1;
    expect((await store.request('PUT', `/v1/orders/${order.id}`, { price: 100 })).status).toBe(200);
    // The second change's event must not overtake the first, which is still waiting.
    expect((await store.request('PUT', `/v1/orders/${order.id}`, { price: 200 })).status).toBe(200);
    expect(seen.filter((event) => event.orderId === order.id)).toEqual([]);
    const waiting = (await waitingFor(order.id)).filter((row) => row.subscriber === 'probe-failing');
    expect(waiting.map((row) => [row.attempts, row.last_error])).toEqual([
      [1, 'subscriber is down'],
      [0, null],
    ]);

    // Not before the backoff…
    await app.services.orderOutbox.deliverDue();
    expect(seen.filter((event) => event.orderId === order.id)).toEqual([]);
    // …then both, oldest first.
    clock.advance(outboxRetryDelayMs(1));
    await app.services.orderOutbox.deliverDue();
    await app.services.orderOutbox.deliverDue();
    expect(seen.filter((event) => event.orderId === order.id).map((event) => event.event)).toEqual([
      { type: 'order.updated', fields: ['price'] },
      { type: 'order.updated', fields: ['price'] },
    ]);
    expect((await waitingFor(order.id)).filter((row) => row.subscriber === 'probe-failing')).toEqual([]);
  });

  it('survive a crash between the commit and the hand-over: the relay queues the send, and it goes once', async () => {
    // A second process that dies right after each commit: its outbox records, but never hands over.
    class CrashingOutbox extends OrderOutbox {
      override async deliver(): Promise<void> {}
    }
    const outbox = new CrashingOutbox({ db: app.services.database.db, logger: createLogger('silent'), now: clock.now });
    outbox.subscribe(notificationsSubscriber({ now: clock.now }));
    const crashing = new OrderService({
      db: app.services.database.db,
      verifier: formatVerifier,
      outbox,
      sendInProgress: recipientVideoInProgress,
      recipientVideoLeft,
      now: clock.now,
    });

    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    await app.services.orders.markRecorded(order.id, { durationTenths: 50 });
    await crashing.update(store.id, order.id, { delivered: 1 });
    const sends = () =>
      app.services.database.db
        .selectFrom('sends')
        .select(['kind', 'status'])
        .where('order_id', '=', order.id)
        .execute();
    expect(await sends()).toEqual([]);

    // Any process's relay hands it over, once however often it runs.
    await app.services.orderOutbox.deliverDue();
    await app.services.orderOutbox.deliverDue();
    expect(await sends()).toEqual([{ kind: 'recipient_video', status: 'pending' }]);
    expect(await app.services.dispatcher.dispatchDue(10)).toBeGreaterThanOrEqual(1);
    expect(await sends()).toContainEqual({ kind: 'recipient_video', status: 'sent' });
  });

  it('are handled once when several relays run at the same time', async () => {
    const { seen } = probe('probe-race', ['order.updated']);
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    const deliveredNow = seen.length;
    // Leave 20 events waiting (as if their process had died), then race six relays over them.
    class RecordOnly extends OrderOutbox {
      override async deliver(): Promise<void> {}
    }
    const outbox = new RecordOnly({ db: app.services.database.db, logger: createLogger('silent'), now: clock.now });
    outbox.subscribe({ name: 'probe-race', events: ['order.updated'], handle: async () => {} });
    const other = new OrderService({
      db: app.services.database.db,
      verifier: formatVerifier,
      outbox,
      sendInProgress: recipientVideoInProgress,
      recipientVideoLeft,
      now: clock.now,
    });
    for (let price = 1; price <= 20; price++) await other.update(store.id, order.id, { price });

    await Promise.all(Array.from({ length: 6 }, () => app.services.orderOutbox.deliverDue()));
    while ((await waitingFor(order.id)).length > 0) await app.services.orderOutbox.deliverDue();
    expect(seen.length - deliveredNow).toBe(20);
    expect(new Set(seen.map((event) => event.seq)).size).toBe(seen.length);
  });

  it("run a subscriber's after-commit hook once its reaction is visible to others, and never for a failed one", async () => {
    const visibleAfterCommit: Array<Promise<{ seq: number; rowsLeft: number }>> = [];
    const state = { failures: 1 };
    app.services.orderOutbox.subscribe({
      name: 'probe-after-commit',
      events: ['order.created', 'order.updated'],
      async handle() {
        if (state.failures > 0) {
          state.failures--;
          throw new Error('subscriber is down');
        }
      },
      // Runs outside the reaction's transaction: the handled row's deletion must be committed by now.
      afterCommit({ seq }) {
        visibleAfterCommit.push(
          app.services.database.db
            .selectFrom('order_outbox')
            .select('seq')
            .where('seq', '=', seq)
            .execute()
            .then((rows) => ({ seq, rowsLeft: rows.length })),
        );
      },
    });
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    // The created event's handler failed: no hook; the row waits for the relay.
    expect(visibleAfterCommit).toHaveLength(0);
    await store.request('PUT', `/v1/orders/${order.id}`, { price: 990 });
    expect(visibleAfterCommit).toHaveLength(0);
    clock.advance(outboxRetryDelayMs(1));
    while ((await waitingFor(order.id)).length > 0) await app.services.orderOutbox.deliverDue();
    const results = await Promise.all(visibleAfterCommit);
    expect(results).toHaveLength(2);
    expect(results.every((result) => result.rowsLeft === 0)).toBe(true);
  });
});
