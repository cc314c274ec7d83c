import { afterAll, beforeAll, expect, it } from 'vitest';
import { validOrder, type TestAccount } from '../support/test-app.ts';
import { fixture, startVideoTestApp, type VideoTestApp } from './video-test-app.ts';
import { sendInOneRequest } from '../support/resumable-upload.ts';

/** Issue 13 item 14: the public record page's upload (no credentials) has a budget per order and per address. */
let app: VideoTestApp;
let store: TestAccount;
const WEBM = fixture('recorded-vp8-opus.webm');

beforeAll(async () => {
  app = await startVideoTestApp({
    queue: 'manual',
    env: { RECORD_UPLOADS_PER_ORDER_PER_HOUR: '2', RECORD_UPLOADS_PER_IP_PER_HOUR: '3' },
  });
  store = await app.createAccount('Upload budget');
  await app.redisConnected();
});
afterAll(async () => {
  await app?.close();
});

const upload = (uuid: string) => sendInOneRequest(app, `/record/${uuid}/uploads`, WEBM, 'video/webm');

it('takes a few uploads per order, then 429 with Retry-After; the address has its own budget', async () => {
  const first = (await store.request('POST', '/v1/orders', validOrder)).body;
  expect((await upload(first.uuid)).status).toBe(201);
  expect((await upload(first.uuid)).status).toBe(201);
  const third = await upload(first.uuid);
  expect(third.status).toBe(429);
  expect(third.body.error.type).toBe('rate_limited');
  expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);

  // Another order from the same address: its own order budget, but the address has one upload left.
  const second = (await store.request('POST', '/v1/orders', validOrder)).body;
  expect((await upload(second.uuid)).status).toBe(201);
  expect((await upload(second.uuid)).status).toBe(429);
});
