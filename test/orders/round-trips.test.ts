import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listTimeline } from '../../src/orders/timeline.ts';
import { QueryCounter } from '../support/query-counter.ts';
import { startTestApp, validOrder, type TestAccount, type TestApp } from '../support/test-app.ts';

/**
 * Issue 11, per-request work: a read costs one statement once the API key is known (the key cache),
 * and the order with its timeline is one statement, not the order and then its events. Counted on
 * the app's own database handle over real HTTP.
 */
describe('database round trips per request', () => {
  const counter = new QueryCounter();
  let app: TestApp;
  let store: TestAccount;
  let orderId: string;

  beforeAll(async () => {
    app = await startTestApp({ queryPlugins: [counter] });
    store = await app.createAccount('Round trips');
    const created = await store.request('POST', '/v1/orders', {
      ...validOrder,
      carrier: 'ups',
      tracking_number: '1Z999AA10123456784',
    });
    expect(created.status).toBe(201);
    orderId = created.body.id;
    const updated = await store.request('PUT', `/v1/orders/${orderId}`, { price: 1500 });
    expect(updated.status).toBe(200);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('GET an order: one statement once the key was seen', async () => {
    expect((await store.request('GET', `/v1/orders/${orderId}`)).status).toBe(200);
    let status = 0;
    const statements = await counter.during(async () => {
      status = (await store.request('GET', `/v1/orders/${orderId}`)).status;
    });
    expect(status).toBe(200);
    expect(statements).toBe(1);
  });

  it("GET an order's events: the order and its timeline in one statement", async () => {
    let body: { data: Array<{ id: string; type: string; created_at: string }> } = { data: [] };
    const statements = await counter.during(async () => {
      body = (await store.request('GET', `/v1/orders/${orderId}/events`)).body;
    });
    expect(statements).toBe(1);
    // The same entries, oldest first, as the timeline read on its own gives.
    expect(body.data).toEqual(await listTimeline(app.services.database.db, orderId));
    expect(body.data.map((entry) => entry.type).slice(0, 2)).toEqual(['order.created', 'shipment.set']);
    expect(body.data.length).toBeGreaterThan(2);
  });

  it('PUT a price: the lock, then the update and its timeline row in one statement', async () => {
    let status = 0;
    const statements = await counter.during(async () => {
      status = (await store.request('PUT', `/v1/orders/${orderId}`, { price: 2500 })).status;
    });
    expect(status).toBe(200);
    // No read before the lock (no carrier to ask) and no outbox row: nothing subscribes to a price.
    // (That a send-plan field still reaches notifications: test/notifications/sending.test.ts.)
    // One fewer than the PUT floor's lock, update and insert: the timeline row rides on the update.
    expect(statements).toBe(2);
    const timeline = await listTimeline(app.services.database.db, orderId);
    expect(timeline.at(-1)).toMatchObject({ type: 'order.updated', data: { fields: ['price'] } });
  });

  it("another account's order is still a 404", async () => {
    const other = await app.createAccount('Someone else');
    expect((await other.request('GET', `/v1/orders/${orderId}/events`)).status).toBe(404);
  });
});
