import { expect, it } from 'vitest';
import { validOrder, type TestAccount, type TestApp } from '../support/test-app.ts';
import { orderTestAppForFile } from './order-test-app.ts';

let app: TestApp;
let store: TestAccount;
orderTestAppForFile((started) => ({ app, store } = started));

it('erases personal data, cancels an unsent order and removes it from the API, keeping price and dates', async () => {
  const order = (
    await store.request('POST', '/v1/orders', { ...validOrder, recipient_phone: '+14155550100', price: 900 })
  ).body;
  await app.services.orders.erasePersonalData(order.id, 'shopify', 'customers/redact');
  expect((await store.request('GET', `/v1/orders/${order.id}`)).status).toBe(404);
  const row = await app.services.database.db
    .selectFrom('orders')
    .selectAll()
    .where('id', '=', order.id)
    .executeTakeFirstOrThrow();
  expect(row).toMatchObject({
    name: '[erased]',
    email: 'erased@invalid.invalid',
    recipient_name: '[erased]',
    recipient_email: null,
    recipient_phone: null,
    status: 'cancelled',
    price: 900,
  });
  expect(row.deleted_at).not.toBeNull();
  const events = await app.services.database.db
    .selectFrom('order_events')
    .select(['type', 'source', 'data'])
    .where('order_id', '=', order.id)
    .execute();
  expect(events).toContainEqual({ type: 'order.erased', source: 'shopify', data: { reason: 'customers/redact' } });
  expect(JSON.stringify(events)).not.toContain('bob@example.com');
});
