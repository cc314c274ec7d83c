import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { up } from '../../src/db/migrations/044-send-on-only-scheduled.ts';
import { startTestApp, validOrder, type TestApp } from '../support/test-app.ts';

/**
 * Migration 044: orders stored before `send_on` became "null when sending is not scheduled" could hold
 * a date on another trigger, and the update rule would then refuse any change to them. The migration
 * clears those dates, and only those, on the real schema.
 */
describe('migration 044-send-on-only-scheduled', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('clears the date of an order that is not sent on a date, keeps a scheduled one, and the order can be changed again', async () => {
    const store = await app.createAccount('Legacy dates');
    const scheduled = { ...validOrder, send_trigger: 'date', send_on: '2026-12-24T09:00:00Z' };
    const legacy = (await store.request('POST', '/v1/orders', scheduled)).body;
    const kept = (await store.request('POST', '/v1/orders', scheduled)).body;
    const db = app.services.database.db;
    // How an order stored before the rule could look: a date left on a package order.
    await db.updateTable('orders').set({ send_trigger: 'package' }).where('id', '=', legacy.id).execute();
    expect((await store.request('PUT', `/v1/orders/${legacy.id}`, { price: 500 })).status).toBe(422);

    await up(db as unknown as Parameters<typeof up>[0]);

    expect((await store.request('GET', `/v1/orders/${legacy.id}`)).body).toMatchObject({
      send_trigger: 'package',
      send_on: null,
    });
    expect((await store.request('GET', `/v1/orders/${kept.id}`)).body).toMatchObject({
      send_trigger: 'date',
      send_on: '2026-12-24T09:00:00Z',
    });
    expect((await store.request('PUT', `/v1/orders/${legacy.id}`, { price: 500 })).status).toBe(200);
  });
});
