import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { eventually } from '../support/workers.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: { RATE_LIMIT_PER_MINUTE: '5' } });
  // The limiter fails open until its Redis connection is ready (tested below); wait for it.
  await eventually(async () => (app.services.redis.status === 'ready' ? true : undefined), 10_000, 'redis ready');
});
afterAll(() => app.close());

it('answers 429 with Retry-After once an account spends its minute, without touching other accounts', async () => {
  const busy = await app.createAccount('Busy');
  const calm = await app.createAccount('Calm');
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) statuses.push((await busy.request('GET', '/v1/orders')).status);
  expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  const limited = await busy.request('GET', '/v1/orders');
  expect(limited.body.error.type).toBe('rate_limited');
  const retryAfter = Number(limited.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect((await calm.request('GET', '/v1/orders')).status).toBe(200);
  // Health checks and bad credentials are not counted against anyone.
  expect((await app.request('GET', '/healthz')).status).toBe(200);
});

it('lets requests through when Redis does not answer: a queue outage must not take the API down', async () => {
  const other = await startTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1' } });
  try {
    const account = await other.createAccount();
    other.services.redis.disconnect();
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await account.request('GET', '/v1/orders')).status);
    expect(statuses).toEqual([200, 200, 200]);
  } finally {
    await other.close().catch(() => undefined);
  }
});
