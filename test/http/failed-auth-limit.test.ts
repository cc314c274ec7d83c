import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KNOWN_KEY_RECHECK_MS } from '../../src/http/failed-auth-limit.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/test-app.ts';

/**
 * Issue 13, brute force: failed Basic-auth attempts are limited per app id and per client address,
 * counted in Redis and so shared by every web process; and the answer to a wrong key is the same
 * whether the app id exists or not.
 */
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const redisReady = (app: TestApp) => app.redisConnected();
const withoutRequestId = (body: { error: Record<string, unknown> }) => ({ ...body.error, request_id: undefined });

describe('failed sign-ins', () => {
  let app: TestApp;
  let other: TestApp;
  let store: TestAccount;
  const prefix = `test-auth-${randomUUID()}`;

  beforeAll(async () => {
    // Two web processes on one Redis and one queue prefix: one limit between them.
    app = await startTestApp({ env: { QUEUE_PREFIX: prefix } });
    other = await startTestApp({ env: { QUEUE_PREFIX: prefix } });
    store = await app.createAccount('Brute force target');
    await Promise.all([redisReady(app), redisReady(other)]);
  });
  afterAll(async () => {
    await app?.close();
    await other?.close();
  });

  it('an unknown app id and a wrong key get the very same answer', async () => {
    const unknown = await app.request('GET', '/v1/orders', { headers: { Authorization: basic('app_nobody', 'k') } });
    const wrong = await app.request('GET', '/v1/orders', { headers: { Authorization: basic(store.appId, 'k') } });
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(withoutRequestId(wrong.body)).toEqual(withoutRequestId(unknown.body));
    expect(wrong.headers.get('www-authenticate')).toBe(unknown.headers.get('www-authenticate'));
  });

  it('ten failures for one app id (across both processes) lock it for the window with 429 and Retry-After', async () => {
    const target = await app.createAccount('Locked out');
    for (let i = 0; i < 10; i++) {
      const via = i % 2 === 0 ? app : other;
      expect(
        (await via.request('GET', '/v1/orders', { headers: { Authorization: basic(target.appId, `guess-${i}`) } }))
          .status,
      ).toBe(401);
    }
    const locked = await other.request('GET', '/v1/orders', {
      headers: { Authorization: basic(target.appId, 'guess-x') },
    });
    expect(locked.status).toBe(429);
    expect(locked.body.error.type).toBe('rate_limited');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    // Even the right key waits: an answer that changed with the key would be an oracle.
    expect((await target.request('GET', '/v1/orders')).status).toBe(429);
    // Another account is not affected.
    expect((await store.request('GET', '/v1/orders')).status).toBe(200);
  });

  it('a key used moments before the lockout (remembered by the process) gets 429 too', async () => {
    const target = await app.createAccount('Locked out while busy');
    // The right key, verified and remembered just before the guessing starts.
    expect((await target.request('GET', '/v1/orders')).status).toBe(200);
    for (let i = 0; i < 10; i++)
      expect(
        (await other.request('GET', '/v1/orders', { headers: { Authorization: basic(target.appId, `guess-${i}`) } }))
          .status,
      ).toBe(401);
    // This process counted none of the failures: it learns of the lockout from Redis within a second.
    await new Promise((resolve) => setTimeout(resolve, KNOWN_KEY_RECHECK_MS));
    expect((await target.request('GET', '/v1/orders')).status).toBe(429);
  });
});

describe('failed sign-ins from one address', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { AUTH_FAILURES_PER_CLIENT_IP: '5', AUTH_FAILURES_PER_APP_ID: '0' } });
    // The web process's Redis connection fails fast until it is up (a request never waits on
    // Redis); counting starts once it is connected.
    await redisReady(app);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('are limited whatever app ids they try, and then the address gets 429', async () => {
    const store = await app.createAccount('Same address');
    for (let i = 0; i < 5; i++)
      expect(
        (await app.request('GET', '/v1/orders', { headers: { Authorization: basic(`app_${i}`, 'k') } })).status,
      ).toBe(401);
    const blocked = await store.request('GET', '/v1/orders');
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});
