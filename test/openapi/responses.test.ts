import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { formatVerifier } from '../../src/carriers/format-verifier.ts';
import type { VideoProcessingQueue } from '../../src/videos/service.ts';
import { startTestApp, validOrder, type TestAccount, type TestApp, type TestResponse } from '../support/test-app.ts';
import { testImage } from '../support/images.ts';
import { ApiDocument } from './api-document.ts';

/**
 * A realistic story through /v1 — create, read, list, correct, upload the video, deliver, send,
 * resend, the timeline, the month's statement, and the errors along the way — with every answer
 * checked against the served document: its status must be documented for the operation and its
 * body must validate against the documented schema. At the end every documented operation has
 * been seen at least once, so a new route cannot join the API without joining this story.
 */

let app: TestApp;
let store: TestAccount;
let api: ApiDocument;
const enqueuedVideos: string[] = [];
const seen = new Map<string, Set<number>>();

beforeAll(async () => {
  // Processing runs by hand in the story's order; carriers are checked by format only (no sandbox round trip).
  const videoQueue: VideoProcessingQueue = { enqueue: async (id) => void enqueuedVideos.push(id) };
  app = await startTestApp({ videoQueue, verifier: formatVerifier });
  store = await app.createAccount('Story store', { revenueShareBps: 500 });
  api = await ApiDocument.fetch(app.baseUrl);
});
afterAll(async () => {
  await app.close();
});

/** Sends a request as the store and checks the answer against the document. */
async function call(
  method: string,
  url: string,
  expectedStatus: number,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  return checked(method, url, expectedStatus, await store.request(method, url, body, headers));
}

function checked(method: string, url: string, expectedStatus: number, response: TestResponse): TestResponse {
  expect(response.status, `${method} ${url}: ${response.text}`).toBe(expectedStatus);
  const { operationId, problems } = api.check(method, url, response.status, response.body);
  expect(problems, `${method} ${url} ${response.status}: ${response.text}`).toEqual([]);
  if (!seen.has(operationId)) seen.set(operationId, new Set());
  seen.get(operationId)!.add(response.status);
  return response;
}

const webm = fs.readFileSync(path.join(import.meta.dirname, '../videos/fixtures/recorded-vp8-opus.webm'));

it('validates every answer of a whole order story against the document', async () => {
  // The document itself, without credentials; then an unauthenticated request.
  const publicDocument = await app.request('GET', '/v1/openapi.json');
  checked('GET', '/v1/openapi.json', 200, publicDocument);
  checked('GET', '/v1/orders', 401, await app.request('GET', '/v1/orders'));

  // Create, with a tracking number that fails its check digit: 201 with the warning first.
  const key = { 'Idempotency-Key': 'story-order-1' };
  const createBody = { ...validOrder, carrier: 'ups', tracking_number: '1Z1111111111111111', price: 1000 };
  const created = await call('POST', '/v1/orders', 201, createBody, key);
  expect(Object.keys(created.body)[0]).toBe('warning');
  const id: string = created.body.id;
  const replay = await call('POST', '/v1/orders', 201, createBody, key);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  await call('POST', '/v1/orders', 409, { ...createBody, price: 1 }, key);
  await call('POST', '/v1/orders', 422, { name: 'Ann' });
  await call('POST', '/v1/orders', 422, validOrder, { 'Idempotency-Key': 'spaces are not allowed' });
  await call('POST', '/v1/orders', 400, '{"name":', { 'Content-Type': 'application/json' });
  await call('POST', '/v1/orders', 415, 'name=Ann', { 'Content-Type': 'application/x-www-form-urlencoded' });
  await call('POST', '/v1/orders', 413, JSON.stringify({ ...validOrder, video_title: 'x'.repeat(1_100_000) }), {
    'Content-Type': 'application/json',
  });

  await call('GET', `/v1/orders/${id}`, 200);
  await call('GET', '/v1/orders/ord_000000000000000000000000', 404);

  // Correct the shipment (a valid UPS number: no warning), the price and the recipient's phone.
  const corrected = await call('PUT', `/v1/orders/${id}`, 200, {
    tracking_number: '1Z5R89390357567127',
    price: 550,
    recipient_phone: '+1 (415) 555-0123',
  });
  expect(corrected.body).not.toHaveProperty('warning');
  await call('PUT', `/v1/orders/${id}`, 422, { delivered: 0 });
  await call('PUT', `/v1/orders/${id}`, 422, { colour: 'blue' });

  // The video: refused with the wrong type, then uploaded and processed.
  await call('PUT', `/v1/orders/${id}/video`, 415, 'not a video', { 'Content-Type': 'text/plain' });
  await call('PUT', `/v1/orders/${id}/video`, 200, webm, { 'Content-Type': 'video/webm' });
  expect(await app.services.videos.process(enqueuedVideos.at(-1)!)).toBe('recorded');
  const recorded = await call('GET', `/v1/orders/${id}`, 200);
  expect(recorded.body).toMatchObject({ status: 'recorded', video_processed: '1' });

  // Delivered (Custom Shipment Tracking), then sent: the dispatcher writes the e-mail to the outbox.
  await call('PUT', `/v1/orders/${id}`, 200, { delivered: 1 });
  await call('POST', `/v1/orders/${id}/resend`, 409);
  await app.services.dispatcher.dispatchDue(100);
  const sent = await call('GET', `/v1/orders/${id}`, 200);
  expect(sent.body.sent_at).toMatch(/Z$/);
  await call('PUT', `/v1/orders/${id}`, 409, { tracking_number: '1Z5R89390357567127', carrier: 'fedex' });

  // A corrected address after sending: resend once.
  await call('PUT', `/v1/orders/${id}`, 200, { recipient_email: 'bob.new@example.com' });
  await call('POST', `/v1/orders/${id}/resend`, 200);
  await call('POST', `/v1/orders/${id}/resend`, 409);

  const timeline = await call('GET', `/v1/orders/${id}/events`, 200);
  expect(timeline.body.data.map((entry: { type: string }) => entry.type)).toEqual(
    expect.arrayContaining(['order.created', 'tracking.warning', 'video.uploaded', 'order.delivered', 'video.sent']),
  );

  // Paging: three orders, two pages of two.
  const second = (await call('POST', '/v1/orders', 201, validOrder)).body.id;
  const third = (await call('POST', '/v1/orders', 201, { ...validOrder, send_trigger: 'now' })).body.id;
  const page1 = await call('GET', '/v1/orders?limit=2', 200);
  expect(page1.body).toMatchObject({ has_more: true });
  const page2 = await call('GET', `/v1/orders?limit=2&cursor=${encodeURIComponent(page1.body.next_cursor)}`, 200);
  expect([...page1.body.data, ...page2.body.data].map((o: { id: string }) => o.id).sort()).toEqual(
    [id, second, third].sort(),
  );
  await call('GET', '/v1/orders?delivered=1&status=delivered', 200);
  await call('GET', '/v1/orders?limit=0', 422);

  // Delete, then it is gone: also to a replay of the request that created it.
  const keyed = (await call('POST', '/v1/orders', 201, validOrder, { 'Idempotency-Key': 'story-deleted' })).body.id;
  await call('DELETE', `/v1/orders/${keyed}`, 204);
  const gone = await call('POST', '/v1/orders', 410, validOrder, { 'Idempotency-Key': 'story-deleted' });
  expect(gone.body.error.message).toContain(keyed);
  await call('DELETE', `/v1/orders/${second}`, 204);
  await call('DELETE', `/v1/orders/${second}`, 404);
  await call('GET', `/v1/orders/${second}/events`, 404);

  // The month's statement has the sent order at its price; a bad month is a validation error.
  const month = (sent.body.sent_at as string).slice(0, 7);
  const statement = await call('GET', `/v1/billing/statements/${month}`, 200);
  expect(statement.body).toMatchObject({ orders_sent: 1, total_price_cents: 550, share_cents: 28 });
  await call('GET', '/v1/billing/statements/2026-13', 422);

  // A Shopify shop's data exports: none for an API account.
  await call('GET', '/v1/shopify/data-exports', 200);
  await call('GET', '/v1/account/settings', 200);
  await call('PUT', '/v1/account/settings', 200, { logo_url: 'https://cdn.example.com/logo.png' });
  await call('PUT', '/v1/account/settings', 422, { logo_url: 'http://cdn.example.com/logo.png' });
  await call('PUT', '/v1/account/settings', 200, { locale: 'fr-CA' });
  await call('PUT', '/v1/account/settings', 422, { locale: 'de' });
  await call('PUT', '/v1/account/logo', 200, await testImage(300, 100, 'png'), { 'Content-Type': 'image/png' });
  await call('PUT', '/v1/account/logo', 422, Buffer.from('not an image'), { 'Content-Type': 'image/png' });
  await call('PUT', '/v1/account/logo', 415, 'not an image', { 'Content-Type': 'text/plain' });
  await call('DELETE', '/v1/account/logo', 200);
  await call('GET', '/v1/shopify/data-exports/dex_none', 404);

  // Every documented operation took part in the story.
  const documented = api.operations().map(([, , operation]) => operation.operationId as string);
  expect([...seen.keys()].sort()).toEqual(documented.sort());
});
