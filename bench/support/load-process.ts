/**
 * The load generator's own process (spawned by bench/support/load.ts): autocannon with a request
 * maker per scenario, so every PUT really changes something and every webhook is a new Shopify
 * order with its own id, webhook id and signature. Prints one JSON result on stdout.
 */
import autocannon, { type RequestParams } from 'autocannon';
import {
  fakeShopifyId,
  orderPayload,
  randomUpsTrackingNumber,
  signedWebhook,
} from '../../src/shopify/dev/webhook-payloads.ts';
import type { LoadResult, LoadSpec } from './load.ts';

const spec = JSON.parse(process.argv[2] ?? '') as LoadSpec;
const orderIds = spec.orderIds ?? [];
const auth: Record<string, string> = spec.authorization ? { Authorization: spec.authorization } : {};
let counter = 0;
const nextOrder = () => {
  if (orderIds.length === 0) throw new Error(`${spec.kind} needs orderIds`);
  return orderIds[counter++ % orderIds.length]!;
};

const makers: Record<LoadSpec['kind'], (request: RequestParams) => RequestParams> = {
  hello: (request) => ({ ...request, method: 'GET', path: '/' }),
  'get-order': (request) => ({ ...request, method: 'GET', path: `/v1/orders/${nextOrder()}`, headers: auth }),
  // The counter makes each order's new price differ from its last: no write is skipped as a no-op.
  'put-price': (request) => ({
    ...request,
    method: 'PUT',
    path: `/v1/orders/${nextOrder()}`,
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ price: 100 + (counter % 1_000_000) }),
  }),
  'put-carrier': (request) => ({
    ...request,
    method: 'PUT',
    path: `/v1/orders/${nextOrder()}`,
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ carrier: 'ups', tracking_number: randomUpsTrackingNumber() }),
  }),
  'orders-create-webhook': (request) => {
    if (!spec.shop || !spec.secret) throw new Error('orders-create-webhook needs shop and secret');
    counter += 1;
    const webhook = signedWebhook(
      spec.secret,
      spec.shop,
      'orders/create',
      orderPayload({
        id: fakeShopifyId(),
        lines: [
          {
            id: fakeShopifyId(),
            recipientName: 'Bench Recipient',
            recipientEmail: `recipient-${counter}@example.com`,
            price: '12.00',
          },
        ],
      }),
    );
    return { ...request, method: 'POST', path: '/shopify/webhooks', headers: webhook.headers, body: webhook.body };
  },
};

const result = await autocannon({
  url: spec.base,
  connections: spec.connections,
  duration: spec.seconds,
  ...(spec.overallRate ? { overallRate: spec.overallRate } : {}),
  timeout: 30,
  requests: [{ setupRequest: makers[spec.kind] }],
});
const summary: LoadResult = {
  okPerSecond: result['2xx'] / result.duration,
  ok: result['2xx'],
  non2xx: result.non2xx,
  errors: result.errors,
  timeouts: result.timeouts,
  latencyP50Ms: result.latency.p50,
  latencyP99Ms: result.latency.p99,
  startedAt: new Date(result.start).getTime(),
  finishedAt: new Date(result.finish).getTime(),
};
process.stdout.write(JSON.stringify(summary));
