import { beforeAll, describe, expect, it } from 'vitest';
import { testAppForFile, validOrder, type TestAccount, type TestApp } from '../support/test-app.ts';

/**
 * Issue 13: inputs that reached a 500 (out-of-range dates, unknown methods) or reached logs and SMS
 * (control characters), and personal data answered without `Cache-Control: no-store`.
 */
describe('hostile input gets a clear 4xx', () => {
  let app: TestApp;
  let store: TestAccount;

  testAppForFile((started) => (app = started));
  beforeAll(async () => {
    store = await app.createAccount('Hostile input');
  });

  /** Creates an order: validOrder with these fields changed. */
  const createOrder = (fields: Record<string, unknown>) =>
    store.request('POST', '/v1/orders', { ...validOrder, ...fields });

  it.each(['0000-01-01T00:00:00Z', '1999-12-31T23:59:59Z'])(
    'send_on %s is a 422 naming the field, on POST and on PUT',
    async (sendOn) => {
      const created = await createOrder({ send_trigger: 'date', send_on: sendOn });
      expect(created.status).toBe(422);
      expect(created.body.error.fields.send_on).toMatch(/between 2000-01-01T00:00:00Z and 9999-12-31T23:59:59Z/);

      const order = await store.request('POST', '/v1/orders', validOrder);
      const updated = await store.request('PUT', `/v1/orders/${order.body.id}`, {
        send_trigger: 'date',
        send_on: sendOn,
      });
      expect(updated.status).toBe(422);
      expect(updated.body.error.fields.send_on).toBeDefined();
      // Nothing was written by the refused change.
      const after = await store.request('GET', `/v1/orders/${order.body.id}`);
      expect(after.body.send_trigger).toBe(order.body.send_trigger);
    },
  );

  it('the last second of year 9999 is still accepted', async () => {
    const created = await createOrder({ send_trigger: 'date', send_on: '9999-12-31T23:59:59Z' });
    expect(created.status).toBe(201);
    expect(created.body.send_on).toBe('9999-12-31T23:59:59Z');
  });

  it.each(['PROPFIND', 'MKCOL', 'PURGE', 'LOCK'])(
    '%s on any path is a 405 with Allow and the JSON error, which no cache keeps (a 405 is cacheable by default)',
    async (method) => {
      for (const path of ['/healthz', '/v1/orders', '/nowhere', '/shopify/webhooks']) {
        const response = await app.request(method, path);
        expect(response.status, `${method} ${path}`).toBe(405);
        expect(response.headers.get('cache-control'), `${method} ${path}`).toBe('no-store');
        expect(response.body.error.type).toBe('method_not_allowed');
        expect(response.body.error.message).toContain(method);
      }
    },
  );

  it.each([
    ['name', 'Ann\r\nX-Injected: yes'],
    ['recipient_name', 'Joe\u0000'],
    ['video_title', 'Happy\u2028birthday'],
    ['name', 'Ann\u001b[31m'],
  ])('a control character in %s is refused, naming the field', async (field, value) => {
    const response = await createOrder({ [field]: value });
    expect(response.status).toBe(422);
    expect(response.body.error.fields[field]).toMatch(/one line of text/);
  });

  it('names may carry any printable script, emoji and accents', async () => {
    const response = await createOrder({ name: 'Zoë 李 Ωμέγα 🎁', video_title: 'عيد ميلاد سعيد' });
    expect(response.status).toBe(201);
    expect(response.body.name).toBe('Zoë 李 Ωμέγα 🎁');
  });

  it('every /v1 answer, success or error, says Cache-Control: no-store', async () => {
    const created = await store.request('POST', '/v1/orders', validOrder);
    const answers = [
      created,
      await store.request('GET', `/v1/orders/${created.body.id}`),
      await store.request('GET', '/v1/orders'),
      await store.request('GET', `/v1/orders/${created.body.id}/events`),
      await store.request('PUT', `/v1/orders/${created.body.id}`, { price: 100 }),
      await store.request('GET', '/v1/orders/not-an-order'),
      await app.request('GET', '/v1/orders'),
    ];
    for (const answer of answers) expect(answer.headers.get('cache-control')).toBe('no-store');
  });
});
