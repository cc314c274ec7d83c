import { expect, it } from 'vitest';
import { signedWebhook } from '../../src/shopify/dev/webhook-payloads.ts';
import { DEVELOPMENT_API_SECRET } from '../../src/shopify/config.ts';
import { Scrape } from '../support/prometheus.ts';
import { validOrder, type TestApp } from '../support/test-app.ts';
import { eventually } from '../support/workers.ts';
import { inboxAppForFile } from '../notifications/inbox-app.ts';

const OPERATOR_PASSWORD = 'metrics-test-password-0123456789';
const operator = `Basic ${Buffer.from(`operator:${OPERATOR_PASSWORD}`).toString('base64')}`;

let app: TestApp;

inboxAppForFile(
  // Polling only: the story counts the polls that see the delivery (a push would need none).
  { sandboxPollIntervalMs: 200, env: { OPERATOR_PASSWORD, USPS_PUSH: 'off' } },
  { dispatchEveryMs: 200 },
  (started) => (app = started.app),
);

async function scrape(): Promise<Scrape> {
  const response = await fetch(`${app.baseUrl}/metrics`, { headers: { Authorization: operator } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return new Scrape(await response.text());
}

it('/metrics needs the operator credentials, compared whole', async () => {
  const anonymous = await app.request('GET', '/metrics');
  expect(anonymous.status).toBe(401);
  expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic /);
  expect(anonymous.body.error.type).toBe('unauthorized');
  const wrong = `Basic ${Buffer.from(`operator:${OPERATOR_PASSWORD}x`).toString('base64')}`;
  expect((await app.request('GET', '/metrics', { headers: { Authorization: wrong } })).status).toBe(401);
  const otherUser = `Basic ${Buffer.from(`admin:${OPERATOR_PASSWORD}`).toString('base64')}`;
  expect((await app.request('GET', '/metrics', { headers: { Authorization: otherUser } })).status).toBe(401);
  // An API account's key is not an operator's.
  const store = await app.createAccount();
  expect((await store.request('GET', '/metrics')).status).toBe(401);
  expect((await app.request('GET', '/metrics', { headers: { Authorization: operator } })).status).toBe(200);
});

it('lists every queue, the per-carrier tracking queues included, and each carrier budget', async () => {
  const metrics = await scrape();
  const queues = new Set(metrics.labelsOf('doorstep_queue_jobs').map((labels) => labels['queue']));
  expect([...queues].sort()).toEqual(
    app.services.queues
      .all()
      .map((queue) => queue.name)
      .sort(),
  );
  expect(queues).toContain('tracking-usps');
  for (const state of ['waiting', 'active', 'delayed', 'failed'])
    expect(metrics.has('doorstep_queue_jobs', { queue: 'billing', state })).toBe(true);
  expect(metrics.has('doorstep_queue_oldest_waiting_seconds', { queue: 'video-processing' })).toBe(true);
  for (const carrier of ['ups', 'fedex', 'usps'])
    expect(metrics.value('doorstep_carrier_quota_left', { carrier })).toBeGreaterThan(0);
  expect(metrics.value('doorstep_scrape_source_up', { source: 'postgres' })).toBe(1);
  expect(metrics.value('doorstep_scrape_source_up', { source: 'redis' })).toBe(1);
});

it('counts the story exactly: requests by route, carrier calls, the send, its lag, tracked packages', async () => {
  const sandbox = app.services.carrierSandbox!.state.carriers.usps.stats;
  const store = await app.createAccount();
  const before = await scrape();
  const trackCallsBefore = sandbox.trackCalls;
  const oauthCallsBefore = sandbox.oauthCalls;

  const order = (await store.request('POST', '/v1/orders', { ...validOrder, recipient_email: 'gift@example.com' }))
    .body;
  await app.services.orders.markRecorded(order.id, { durationTenths: 80 });
  const trackingNumber = '9400111899223817240935';
  const put = await store.request('PUT', `/v1/orders/${order.id}`, {
    carrier: 'usps',
    tracking_number: trackingNumber,
  });
  expect(put.status).toBe(200);
  expect((await store.request('GET', `/v1/orders/${order.id}`)).status).toBe(200);

  const tracking = await scrape();
  expect(
    tracking.sum('doorstep_tracked_packages', { carrier: 'usps' }) -
      before.sum('doorstep_tracked_packages', { carrier: 'usps' }),
  ).toBe(1);

  await fetch(`${app.baseUrl}/sandbox/carriers/usps/packages/${trackingNumber}/events`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ status: 'delivered' }),
  });
  // Settled: every message of the order marked sent (the recipient's video, then the sender's note).
  const db = app.services.database.db;
  const sends = await eventually(
    async () => {
      const rows = await db
        .selectFrom('sends')
        .select(['kind', 'channel', 'status'])
        .where('order_id', '=', order.id)
        .execute();
      return rows.length >= 2 && rows.every((row) => row.status === 'sent') ? rows : undefined;
    },
    20_000,
    'every message of the order marked sent',
  );
  await eventually(
    async () =>
      (
        await db
          .selectFrom('trackings')
          .select('next_poll_at')
          .where('order_id', '=', order.id)
          .executeTakeFirstOrThrow()
      ).next_poll_at === null
        ? true
        : undefined,
    10_000,
    'tracking stopped',
  );
  const after = await scrape();
  const delta = (name: string, labels: Record<string, string> = {}) =>
    after.value(name, labels) - before.value(name, labels);

  // HTTP: by route pattern and status; the order's id (a path segment) never becomes a label.
  const http = 'doorstep_http_request_duration_seconds_count';
  expect(delta(http, { method: 'POST', route: '/v1/orders', status: '201' })).toBe(1);
  expect(delta(http, { method: 'PUT', route: '/v1/orders/:orderId', status: '200' })).toBe(1);
  expect(delta(http, { method: 'GET', route: '/v1/orders/:orderId', status: '200' })).toBe(1);
  expect(after.text).not.toContain(order.id);

  // Carrier calls: exactly what the (fake) carrier received, by operation.
  const calls = (scrape: Scrape, operation: string) =>
    scrape.sum('doorstep_carrier_calls_total', { carrier: 'usps', operation });
  expect(calls(after, 'track') - calls(before, 'track')).toBe(sandbox.trackCalls - trackCallsBefore);
  expect(calls(after, 'oauth') - calls(before, 'oauth')).toBe(sandbox.oauthCalls - oauthCallsBefore);
  expect(sandbox.trackCalls - trackCallsBefore).toBeGreaterThan(0);
  // At least the poll that saw the delivery answered 200 (the number may be unknown to the carrier before).
  expect(delta('doorstep_carrier_calls_total', { carrier: 'usps', operation: 'track', outcome: 'ok' })).toBeGreaterThan(
    0,
  );

  // Sends: one per message row, by channel, kind and outcome; nothing retried or failed.
  expect(delta('doorstep_sends_total', { channel: 'email', kind: 'recipient_video', outcome: 'sent' })).toBe(1);
  for (const kind of new Set(sends.map((row) => row.kind)))
    expect(delta('doorstep_sends_total', { channel: 'email', kind, outcome: 'sent' })).toBe(
      sends.filter((row) => row.kind === kind).length,
    );
  expect(
    after.sum('doorstep_sends_total', { outcome: 'retry' }) - before.sum('doorstep_sends_total', { outcome: 'retry' }),
  ).toBe(0);
  expect(
    after.sum('doorstep_sends_total', { outcome: 'failed' }) -
      before.sum('doorstep_sends_total', { outcome: 'failed' }),
  ).toBe(0);

  // The delivered → sent lag: one observation, as long as the order's own timestamps say.
  expect(delta('doorstep_delivered_to_sent_seconds_count', { channel: 'email' })).toBe(1);
  const row = await db
    .selectFrom('orders')
    .select(['delivered_at', 'sent_at'])
    .where('id', '=', order.id)
    .executeTakeFirstOrThrow();
  const lagSeconds = (row.sent_at!.getTime() - row.delivered_at!.getTime()) / 1_000;
  expect(delta('doorstep_delivered_to_sent_seconds_sum', { channel: 'email' })).toBeCloseTo(lagSeconds, 2);

  // Tracking stopped at delivery: the package is no longer tracked.
  expect(after.sum('doorstep_tracked_packages', { carrier: 'usps' })).toBe(
    before.sum('doorstep_tracked_packages', { carrier: 'usps' }),
  );
  expect(after.value('doorstep_packages_overdue', { carrier: 'usps' })).toBe(0);
}, 40_000);

it('counts webhooks by topic and outcome, and the receipts waiting', async () => {
  const shop = 'metrics-test.myshopify.com';
  const before = await scrape();
  const signed = signedWebhook(DEVELOPMENT_API_SECRET, shop, 'orders/create', { id: 1 });
  const post = (headers: Record<string, string>) =>
    fetch(`${app.baseUrl}/shopify/webhooks`, { method: 'POST', headers, body: signed.body });
  expect((await post({ ...signed.headers, 'X-Shopify-Hmac-Sha256': 'AAAA' })).status).toBe(401);
  expect((await post(signed.headers)).status).toBe(200);
  expect((await post(signed.headers)).status).toBe(200);
  // The workers process it: an unknown shop's order cannot be, and stays 'failed' for a replay.
  const receipt = await eventually(
    async () => {
      const row = await app.services.database.db
        .selectFrom('webhook_receipts')
        .select('status')
        .where('webhook_id', '=', signed.webhookId)
        .executeTakeFirst();
      return row && row.status !== 'received' ? row : undefined;
    },
    15_000,
    'the webhook processed',
  );
  const after = await scrape();
  const delta = (outcome: string) =>
    after.value('doorstep_webhook_receipts_total', { topic: 'orders/create', outcome }) -
    before.value('doorstep_webhook_receipts_total', { topic: 'orders/create', outcome });
  expect(delta('rejected')).toBe(1);
  expect(delta('stored')).toBe(1);
  expect(delta('duplicate')).toBe(1);
  expect(delta(receipt.status)).toBe(1);
  expect(after.value('doorstep_webhook_receipts_waiting')).toBe(0);

  // A receipt the workers have not taken yet is waiting.
  await app.services.database.db
    .insertInto('webhook_receipts')
    .values({
      webhook_id: `waiting-${signed.webhookId}`,
      topic: 'orders/create',
      shop,
      api_version: null,
      triggered_at: null,
      raw_body: '{}',
      status: 'received',
      received_at: new Date(),
    })
    .execute();
  expect((await scrape()).value('doorstep_webhook_receipts_waiting')).toBeGreaterThanOrEqual(1);
});
