import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, validOrder, type TestAccount, type TestApp } from '../support/test-app.ts';

// Validation on PUT spends the carrier's request budget like polling does (src/carriers/quota.ts).
let app: TestApp;
let store: TestAccount;

beforeAll(async () => {
  app = await startTestApp({ env: { USPS_QUOTA: '3/minute' } });
  store = await app.createAccount();
});
afterAll(() => app.close());

const NUMBERS = [
  '9400111899223817240102',
  '9400111899223817240119',
  '9400111899223817240126',
  '9400111899223817240133',
];

async function sandbox(method: string, path: string, body?: unknown) {
  const response = await fetch(`${app.baseUrl}/sandbox/carriers/${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return response.status === 204 ? undefined : ((await response.json()) as Record<string, number>);
}

async function putTracking(trackingNumber: string) {
  const order = (await store.request('POST', '/v1/orders', validOrder)).body;
  return store.request('PUT', `/v1/orders/${order.id}`, { carrier: 'usps', tracking_number: trackingNumber });
}

it('with a USPS quota of 3 a minute, the fourth PUT answers at once with a warning and USPS is not asked', async () => {
  // Labels USPS knows, so a validation that reached the sandbox answers without a warning.
  for (const number of NUMBERS) await sandbox('POST', `usps/packages/${number}/events`, { status: 'pre_transit' });

  for (const number of NUMBERS.slice(0, 3)) {
    const response = await putTracking(number);
    expect(response.status).toBe(200);
    expect(response.body.warning).toBeUndefined();
  }
  expect((await sandbox('GET', 'usps/stats'))!.track_calls).toBe(3);

  const fourth = await putTracking(NUMBERS[3]!);
  expect(fourth.status).toBe(200);
  expect(fourth.body.tracking_number).toBe(NUMBERS[3]);
  expect(fourth.body.warning).toEqual({
    type: 'request',
    message: `The tracking number "${NUMBERS[3]}" looks right, but USPS was not asked: our request budget for USPS is used up for now, or USPS asked us to wait. It is stored and will be checked by the next poll.`,
  });
  expect((await sandbox('GET', 'usps/stats'))!.track_calls).toBe(3);

  // A number that fails the format check says so too.
  const bad = await putTracking('9400111899223817240110');
  expect(bad.body.warning.message).toMatch(
    /^"9400111899223817240110" is not a valid USPS tracking number \(check digit does not match\)\. USPS was not asked: /,
  );
  expect((await sandbox('GET', 'usps/stats'))!.track_calls).toBe(3);

  // Another carrier's budget is its own.
  const ups = (await store.request('POST', '/v1/orders', validOrder)).body;
  await store.request('PUT', `/v1/orders/${ups.id}`, { carrier: 'ups', tracking_number: '1Z5R89390357567127' });
  expect((await sandbox('GET', 'ups/stats'))!.track_calls).toBe(1);
});

it('does not ask the carrier when the budget cannot be checked (Redis away), and still stores the number', async () => {
  const other = await startTestApp();
  try {
    const account = await other.createAccount();
    // Redis goes away after it was up (the queues sharing the connection have finished starting).
    await other.redisConnected();
    other.services.redis.disconnect();
    const order = (await account.request('POST', '/v1/orders', validOrder)).body;
    const response = await account.request('PUT', `/v1/orders/${order.id}`, {
      carrier: 'usps',
      tracking_number: NUMBERS[0],
    });
    expect(response.status).toBe(200);
    expect(response.body.tracking_number).toBe(NUMBERS[0]);
    expect(response.body.warning.message).toMatch(
      /USPS was not asked: our USPS request budget could not be checked just now\. It is stored and will be checked by the next poll\.$/,
    );
    const stats = (await fetch(`${other.baseUrl}/sandbox/carriers/usps/stats`).then((r) => r.json())) as {
      track_calls: number;
    };
    expect(stats.track_calls).toBe(0);
  } finally {
    await other.close().catch(() => undefined);
  }
});
