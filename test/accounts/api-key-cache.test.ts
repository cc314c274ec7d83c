import { describe, expect, it } from 'vitest';
import { authenticateCached, createAccount, rotateApiKey, type Account } from '../../src/accounts/accounts.ts';
import { API_KEY_CACHE_TTL_MS, ApiKeyCache } from '../../src/accounts/api-key-cache.ts';
import type { Db } from '../../src/db/database.ts';
import { openTestDatabase, type TestDatabase } from '../support/database.ts';
import { forFile } from '../support/for-file.ts';
import { QueryCounter } from '../support/query-counter.ts';
import { testAppForFile, type TestApp } from '../support/test-app.ts';

const account = (id: string): Account => ({
  id,
  name: id,
  appId: `app_${id}`,
  locale: 'en',
  revenueShareBps: null,
  apiKeyHint: null,
  createdAt: new Date(0),
});

describe('ApiKeyCache', () => {
  it('forgets an entry once its time is up', () => {
    let now = 1_000;
    const cache = new ApiKeyCache<Account>({ ttlMs: 30_000, now: () => now });
    cache.set('app_a', 'hash-a', account('a'));
    now += 29_999;
    expect(cache.get('app_a', 'hash-a')?.id).toBe('a');
    now += 1;
    expect(cache.get('app_a', 'hash-a')).toBeUndefined();
  });

  it('holds at most its size, making room by dropping the oldest entry', () => {
    const cache = new ApiKeyCache<Account>({ maxEntries: 2 });
    cache.set('app_a', 'hash-a', account('a'));
    cache.set('app_b', 'hash-b', account('b'));
    cache.set('app_c', 'hash-c', account('c'));
    expect(cache.size).toBe(2);
    expect(cache.get('app_a', 'hash-a')).toBeUndefined();
    expect(cache.get('app_c', 'hash-c')?.id).toBe('c');
  });

  it('a key and app id that do not belong together are not found', () => {
    const cache = new ApiKeyCache<Account>();
    cache.set('app_a', 'hash-a', account('a'));
    expect(cache.get('app_b', 'hash-a')).toBeUndefined();
    expect(cache.get('app_a', 'hash-b')).toBeUndefined();
  });
});

describe('authenticating API keys through the cache', () => {
  let database: TestDatabase;
  let counter: QueryCounter;
  let counted: Db;

  forFile(
    () => openTestDatabase(),
    (opened) => {
      database = opened;
      counter = new QueryCounter();
      counted = database.db.withPlugin(counter);
    },
    (opened) => opened.close(),
  );

  it('a second request with the same key does not ask the database', async () => {
    const { account: created, apiKey } = await createAccount(database.db, { name: 'Cached store' });
    const cache = new ApiKeyCache<Account>();
    const before = counter.count;
    expect((await authenticateCached(counted, cache, created.appId, apiKey))?.id).toBe(created.id);
    expect(counter.count).toBe(before + 1);
    expect((await authenticateCached(counted, cache, created.appId, apiKey))?.id).toBe(created.id);
    expect(counter.count).toBe(before + 1);
  });

  it('a wrong key is asked of the database every time, so a key issued a moment later works at once', async () => {
    const { account: created, apiKey } = await createAccount(database.db, { name: 'Wrong key store' });
    const cache = new ApiKeyCache<Account>();
    const before = counter.count;
    expect(await authenticateCached(counted, cache, created.appId, 'dsk_wrong')).toBeNull();
    expect(await authenticateCached(counted, cache, created.appId, 'dsk_wrong')).toBeNull();
    expect(counter.count).toBe(before + 2);
    expect(cache.size).toBe(0);
    expect((await authenticateCached(counted, cache, created.appId, apiKey))?.id).toBe(created.id);
  });

  it('rotation stops the old key at once in this process and the new one works at once', async () => {
    const { account: created, apiKey: oldKey } = await createAccount(database.db, { name: 'Rotating store' });
    const cache = new ApiKeyCache<Account>();
    expect(await authenticateCached(counted, cache, created.appId, oldKey)).not.toBeNull();

    // Rotated through a plain database handle, as the Shopify admin does: the cache is not passed in.
    const rotated = await rotateApiKey(database.db, created.id);

    expect(await authenticateCached(counted, cache, created.appId, oldKey)).toBeNull();
    expect((await authenticateCached(counted, cache, created.appId, rotated.apiKey))?.id).toBe(created.id);
  });

  it('rotating one account leaves the others cached', async () => {
    const first = await createAccount(database.db, { name: 'First store' });
    const second = await createAccount(database.db, { name: 'Second store' });
    const cache = new ApiKeyCache<Account>();
    await authenticateCached(counted, cache, first.account.appId, first.apiKey);
    await authenticateCached(counted, cache, second.account.appId, second.apiKey);
    await rotateApiKey(database.db, first.account.id);
    const before = counter.count;
    expect((await authenticateCached(counted, cache, second.account.appId, second.apiKey))?.id).toBe(second.account.id);
    expect(counter.count).toBe(before);
  });

  it('trusts a key for thirty seconds, then asks again', async () => {
    const { account: created, apiKey } = await createAccount(database.db, { name: 'Aging store' });
    let now = Date.now();
    const cache = new ApiKeyCache<Account>({ now: () => now });
    await authenticateCached(counted, cache, created.appId, apiKey);
    const before = counter.count;
    now += API_KEY_CACHE_TTL_MS;
    await authenticateCached(counted, cache, created.appId, apiKey);
    expect(counter.count).toBe(before + 1);
  });
});

describe('the /v1 API after a key rotation', () => {
  let app: TestApp;

  testAppForFile((started) => (app = started));

  it('refuses the old key on the very next request and accepts the new one', async () => {
    const store = await app.createAccount('Rotated over HTTP');
    expect((await store.request('GET', '/v1/orders')).status).toBe(200);
    expect((await store.request('GET', '/v1/orders')).status).toBe(200);

    const rotated = await rotateApiKey(app.services.database.db, store.id);

    const refused = await store.request('GET', '/v1/orders');
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ error: expect.anything() });
    const fresh = await app.request('GET', '/v1/orders', {
      headers: { Authorization: `Basic ${Buffer.from(`${rotated.appId}:${rotated.apiKey}`).toString('base64')}` },
    });
    expect(fresh.status).toBe(200);
  });
});
