import { afterAll, beforeAll, expect, it } from 'vitest';
import { TestClock } from '../support/clock.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

// The window is the clock's minute: the test clock decides it, so a run crossing a real minute
// boundary changes nothing, and crossing one on purpose is a test of its own.
const clock = new TestClock('2026-12-01T10:00:00.000Z');
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ now: clock.now, env: { RATE_LIMIT_PER_MINUTE: '5' } });
  // The limiter fails open until its Redis connection is ready (tested below); wait for it.
  await app.redisConnected();
});
afterAll(() => app.close());

async function spend(
  account: { request(method: string, path: string): Promise<{ status: number }> },
  requests: number,
): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < requests; i++) statuses.push((await account.request('GET', '/v1/orders')).status);
  return statuses;
}

it('answers 429 with Retry-After once an account spends its minute, without touching other accounts', async () => {
  clock.set('2026-12-01T10:00:00.000Z');
  const busy = await app.createAccount('Busy');
  const calm = await app.createAccount('Calm');
  const first = await busy.request('GET', '/v1/orders');
  expect(first.headers.get('ratelimit-limit')).toBe('5');
  expect(first.headers.get('ratelimit-remaining')).toBe('4');
  expect(await spend(busy, 5)).toEqual([200, 200, 200, 200, 429]);
  const limited = await busy.request('GET', '/v1/orders');
  expect(limited.status).toBe(429);
  expect(limited.body.error.type).toBe('rate_limited');
  // At the very start of the window, the whole minute remains.
  expect(limited.headers.get('retry-after')).toBe('60');
  expect(limited.headers.get('ratelimit-remaining')).toBe('0');
  expect((await calm.request('GET', '/v1/orders')).status).toBe(200);
  // Health checks are not counted against anyone.
  expect((await app.request('GET', '/healthz')).status).toBe(200);
});

it('counts down Retry-After to the end of the minute, and resets the budget when the clock enters the next one', async () => {
  clock.set('2026-12-01T11:15:20.000Z');
  const account = await app.createAccount('Minute');
  expect(await spend(account, 6)).toEqual([200, 200, 200, 200, 200, 429]);

  clock.set('2026-12-01T11:15:59.400Z');
  const late = await account.request('GET', '/v1/orders');
  expect(late.status).toBe(429);
  // 0.6 s left in the minute: rounded up, never 0.
  expect(late.headers.get('retry-after')).toBe('1');

  clock.set('2026-12-01T11:16:00.000Z');
  expect(await spend(account, 6)).toEqual([200, 200, 200, 200, 200, 429]);
  expect((await account.request('GET', '/v1/orders')).headers.get('retry-after')).toBe('60');

  // Going back into the spent minute finds it still spent: the window is the minute, not a timer.
  clock.set('2026-12-01T11:15:59.999Z');
  expect((await account.request('GET', '/v1/orders')).status).toBe(429);
});

it('lets requests through when Redis does not answer: a queue outage must not take the API down', async () => {
  const other = await startTestApp({ now: clock.now, env: { RATE_LIMIT_PER_MINUTE: '1' } });
  try {
    const account = await other.createAccount();
    other.services.redis.disconnect();
    expect(await spend(account, 3)).toEqual([200, 200, 200]);
  } finally {
    await other.close().catch(() => undefined);
  }
});
