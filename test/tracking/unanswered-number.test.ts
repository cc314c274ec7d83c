import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validOrder, type TestAccount, type TestApp } from '../support/test-app.ts';
import { eventually } from '../support/workers.ts';
import { deliveredOrder, scriptPackage, trackingAppForFile } from './tracking-app.ts';

/**
 * A carrier answer that says nothing about a package we know to be on its way (FedEx leaving the number
 * out of its batch; tracking probe): a failed look, retried, with what we knew kept — not news that
 * turns an out-for-delivery package into "unknown" and its dense polling into one look a morning.
 */
let app: TestApp;
let store: TestAccount;
let silent = false;

// Between the app and its own carrier sandbox: FedEx's track calls answered with an empty batch while `silent`.
const between = http.createServer((request, response) => void answer(request, response));

async function answer(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
  const path = request.url ?? '/';
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  if (silent && path.startsWith('/fedex/track/')) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ transactionId: 'silent', output: { completeTrackResults: [] } }));
    return;
  }
  const headers = Object.fromEntries(
    Object.entries(request.headers).filter(([name]) => !['host', 'content-length', 'connection'].includes(name)),
  ) as Record<string, string>;
  const forwarded = await fetch(`${app.baseUrl}/sandbox${path}`, {
    method: request.method ?? 'GET',
    headers,
    ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
  });
  response.writeHead(forwarded.status, { 'content-type': forwarded.headers.get('content-type') ?? 'application/json' });
  response.end(Buffer.from(await forwarded.arrayBuffer()));
}
beforeAll(() => new Promise<void>((resolve) => between.listen(0, '127.0.0.1', resolve)));
afterAll(() => new Promise<void>((resolve) => between.close(() => resolve())));

trackingAppForFile((started) => ({ app, store } = started), {
  sandboxPollIntervalMs: 500,
  get sandboxBaseUrl() {
    return `http://127.0.0.1:${(between.address() as AddressInfo).port}`;
  },
});

const tracking = (orderId: string) =>
  app.services.database.db
    .selectFrom('trackings')
    .selectAll()
    .where('order_id', '=', orderId)
    .executeTakeFirstOrThrow();

describe('a number the carrier leaves out of its answer', () => {
  it('is a failed look: the package stays out for delivery, and its delivery is seen once the carrier answers again', async () => {
    const number = '797843158299';
    await scriptPackage(app, 'fedex', number, { status: 'out_for_delivery' });
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    expect(
      (await store.request('PUT', `/v1/orders/${order.id}`, { carrier: 'fedex', tracking_number: number })).status,
    ).toBe(200);
    await eventually(
      async () => (await tracking(order.id)).status === 'out_for_delivery' || undefined,
      10_000,
      'out for delivery',
    );

    silent = true;
    const failed = await eventually(
      async () => {
        const row = await tracking(order.id);
        return row.consecutive_errors >= 2 ? row : undefined;
      },
      15_000,
      'looks that heard nothing',
    );
    expect(failed.status).toBe('out_for_delivery');

    silent = false;
    await scriptPackage(app, 'fedex', number, { status: 'delivered' });
    expect((await deliveredOrder(store, order.id, 15_000, 'the order delivered')).delivered).toBe('1');
  });
});
