import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMailServer } from '../support/mail-server.ts';
import type { TestAccount, TestApp } from '../support/test-app.ts';
import { eventually } from '../support/workers.ts';
import { pushStory, pushTestAppForFile } from '../support/push-story.ts';
import { OpenApiSpec } from '../carriers/sandbox/support/openapi.ts';

/**
 * UPS Track Alert end to end on real PGlite/PostgreSQL, Redis and HTTP: the service subscribes
 * tracked 1Z numbers with the sandboxed UPS, which posts each new scan to our webhook with a token
 * from our token URL, as ups-track-alert.openapi.yaml describes. Polling is slowed to once a minute
 * here, so a delivery seen within seconds can only have come by push.
 */
const trackAlert = await OpenApiSpec.load('ups-track-alert.openapi.yaml');

let app: TestApp;
let store: TestAccount;
let mail: Awaited<ReturnType<typeof startMailServer>>;

beforeAll(async () => {
  mail = await startMailServer();
});
// Registered first, so it runs last (after hooks run as a stack): the app stops before its inbox.
afterAll(async () => {
  await mail.close();
});
pushTestAppForFile(
  (started) => ({ app, store } = started),
  () => ({ SMTP_URL: mail.url }),
);

const sandbox = () => app.services.carrierSandbox!.state;
const { script, shippedOrder, tracking, subscribed, storedEvents } = pushStory(
  () => app,
  () => store,
  'ups',
);

async function pushToken(clientId: string, clientSecret: string) {
  return fetch(`${app.baseUrl}/carriers/ups/track-alert/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
}

async function validToken(): Promise<string> {
  const credentials = app.services.push.ups!;
  const response = await pushToken(credentials.clientId, credentials.clientSecret);
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

function postEvent(body: unknown, headers: Record<string, string>) {
  return fetch(`${app.baseUrl}/carriers/ups/track-alert`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'UPSPubSubTrackingService', ...headers },
    body: JSON.stringify(body),
  });
}

/** A subscription request to the sandboxed UPS Track Alert API, as our client sends it. */
function subscribePackages(token: string, body: Record<string, unknown>) {
  return fetch(`${app.baseUrl}/sandbox/ups/api/track/v2/subscription/standard/package`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      transId: 'abc',
      transactionSrc: 'test',
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  });
}

describe('UPS Track Alert push', () => {
  it('a pushed delivery delivers the order within seconds and the recipient e-mail follows, in ≤ 3 carrier calls', async () => {
    const number = '1Z879E930346834441';
    const order = await shippedOrder(number, { recipient_email: 'push-gift@example.com' });
    await app.services.orders.markRecorded(order.id, { durationTenths: 80 });
    await subscribed(order.id);
    expect(sandbox().push.isSubscribed('ups', number)).toBe(true);

    await script(number, { status: 'in_transit', at: new Date(Date.now() - 3_600_000).toISOString() });
    await script(number, { status: 'out_for_delivery', at: new Date(Date.now() - 600_000).toISOString() });
    const deliveredAt = new Date(Date.now() - 5_000);
    deliveredAt.setUTCMilliseconds(0);
    const scriptedAt = Date.now();
    await script(number, { status: 'delivered', at: deliveredAt.toISOString() });

    const message = await eventually(
      async () => mail.messages.find((m) => m.to.includes('push-gift@example.com')),
      15_000,
      'the recipient e-mail',
    );
    // The poll comes once a minute: only the push can be this quick.
    expect(Date.now() - scriptedAt).toBeLessThan(15_000);
    expect(message.raw).toContain(order.playback_url);
    const delivered = (await store.request('GET', `/v1/orders/${order.id}`)).body;
    expect(delivered.delivered_at).toBe(deliveredAt.toISOString().replace('.000Z', 'Z'));

    const row = await tracking(order.id);
    expect(row.stopped_reason).toBe('order_delivered');
    expect(row.last_pushed_at).not.toBeNull();
    // Track calls for this package: the PUT's validation and at most the first poll.
    expect(row.poll_count).toBeLessThanOrEqual(1);
    // Every pushed event was stored and handled once. Each is applied by its own job, so they can land
    // out of order: one older than an event already applied is 'stale', never applied over it. The
    // delivery, the newest, is always applied.
    const events = await storedEvents(number);
    expect(events).toHaveLength(3);
    for (const event of events) expect(['applied', 'stale']).toContain(event.outcome);
    const delivery = events.filter((e) => JSON.stringify(e.body).includes('"type":"D"'));
    expect(delivery.map((e) => e.outcome)).toEqual(['applied']);
    const timeline = (await store.request('GET', `/v1/orders/${order.id}/events`)).body.data as Array<{
      type: string;
      data: { status?: string };
    }>;
    expect(timeline.filter((e) => e.type === 'tracking.status').map((e) => e.data.status)).toEqual(
      expect.arrayContaining(['in_transit', 'out_for_delivery', 'delivered']),
    );
  });

  it('subscribes in the wire format of ups-track-alert.openapi.yaml and the sandbox answers in it', async () => {
    const token = sandbox().tokens.issue('ups').accessToken;
    const body = { locale: 'en_US', countryCode: 'US', trackingNumberList: ['1Z879E930346834442', '1Z1234567$8'] };
    expect(
      trackAlert.validate(trackAlert.requestSchema('/subscription/{type}/package', 'post'), {
        ...body,
        trackingNumberList: ['1Z879E930346834442'],
      }),
    ).toEqual([]);
    const response = await subscribePackages(token, body);
    expect(response.status).toBe(200);
    const answer = (await response.json()) as unknown;
    expect(trackAlert.validate(trackAlert.responseSchema('/subscription/{type}/package', 'post', 200), answer)).toEqual(
      [],
    );
    expect(answer).toEqual({ validTrackingNumbers: ['1Z879E930346834442'], invalidTrackingNumbers: ['1Z1234567$8'] });

    const tooMany = await subscribePackages(token, {
      locale: 'en_US',
      trackingNumberList: Array.from({ length: 101 }, () => '1Z879E930346834442'),
    });
    expect(tooMany.status).toBe(400);
    const error = (await tooMany.json()) as { response: { errors: Array<{ code: string }> } };
    expect(trackAlert.validate(trackAlert.responseSchema('/subscription/{type}/package', 'post', 400), error)).toEqual(
      [],
    );
    expect(error.response.errors[0]!.code).toBe('VSS220');
  });

  it("the sandbox's webhook posts are TrackingEventRequest bodies with the spec's headers", async () => {
    const number = '1Z879E930346834443';
    const order = await shippedOrder(number);
    await subscribed(order.id);
    const before = sandbox().push.deliveries.length;
    await script(number, {
      status: 'out_for_delivery',
      estimated_delivery_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
    await eventually(
      async () => ((await storedEvents(number)).length > 0 ? true : undefined),
      15_000,
      'the stored event',
    );
    expect(
      sandbox()
        .push.deliveries.slice(before)
        .map((d) => d.status),
    ).toEqual([200]);
    const [stored] = await storedEvents(number);
    const body = typeof stored!.body === 'string' ? JSON.parse(stored!.body) : stored!.body;
    expect(trackAlert.validate(trackAlert.schema('TrackingEventRequest'), body)).toEqual([]);
    expect(body).toMatchObject({ trackingNumber: number, activityStatus: { type: 'I', code: 'OT' } });
  });

  it('refuses an event without our credentials (401) and stores nothing', async () => {
    const number = '1Z879E930346834444';
    const event = { trackingNumber: number, activityStatus: { type: 'D', code: 'FS', description: 'Delivered' } };
    const token = await validToken();
    const refused = [
      await postEvent(event, {}),
      await postEvent(event, { authorization: 'Bearer 9999999999.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }),
      await postEvent(event, { authorization: `Bearer ${token}x` }),
      await postEvent(event, { authorization: `Bearer ${token}`, 'x-api-key': 'someone-else' }),
    ];
    for (const response of refused) {
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: { type: string } }).error.type).toBe('unauthorized');
    }
    expect(await storedEvents(number)).toEqual([]);
    // The token URL itself wants our client credentials.
    expect((await pushToken(app.services.push.ups!.clientId, 'wrong')).status).toBe(401);
    expect((await pushToken('', '')).status).toBe(401);
    // With them, a malformed event is a clear 400, also not stored.
    const malformed = await postEvent({ trackingNumber: 'nope' }, { authorization: `Bearer ${token}` });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { type: string } }).error.type).toBe('invalid_event');
    // UPS's body is not ours to correct: a key it repeats is read as JSON.parse reads it (the last
    // value), where an API client's body gets a 400 (fields probe).
    const repeatedKey = await fetch(`${app.baseUrl}/carriers/ups/track-alert`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(event).replace('{', '{"trackingNumber":"1Z0",'),
    });
    expect(repeatedKey.status).toBe(200);
  });

  it('stores a resent event once and applies it once', async () => {
    const number = '1Z879E930346834445';
    const order = await shippedOrder(number);
    // After the first poll (the sandbox does not know the number: not found), so only the push moves it.
    await eventually(async () => ((await tracking(order.id)).poll_count >= 1 ? true : undefined));
    const token = await validToken();
    const event = {
      trackingNumber: number,
      localActivityDate: '20261123',
      localActivityTime: '091519',
      activityStatus: { type: 'I', code: 'OT', description: 'Out for Delivery' },
      gmtActivityDate: '20261123',
      gmtActivityTime: '141519',
      gmtOffset: '-05.00',
    };
    const headers = { authorization: `Bearer ${token}`, 'x-api-key': app.services.push.ups!.clientId };
    const answers = await Promise.all([
      postEvent(event, headers),
      postEvent(event, headers),
      postEvent(event, headers),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
    const stored = await eventually(async () => {
      const rows = await storedEvents(number);
      return rows.every((r) => r.processed_at) ? rows : undefined;
    });
    expect(stored).toHaveLength(1);
    expect(stored[0]!.outcome).toBe('applied');
    expect(stored[0]!.attempts).toBe(1);
    const statuses = (
      (await store.request('GET', `/v1/orders/${order.id}/events`)).body.data as Array<{
        type: string;
        data: { status?: string };
      }>
    ).filter((e) => e.type === 'tracking.status' && e.data.status === 'out_for_delivery');
    expect(statuses).toHaveLength(1);
    expect((await tracking(order.id)).status).toBe('out_for_delivery');
  });
});
