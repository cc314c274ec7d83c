import { describe, expect, it } from 'vitest';
import {
  createUspsSubscriptions,
  uspsSignature,
  USPS_PUSH_LIFETIME_MS,
} from '../../src/carriers/clients/usps-subscriptions.ts';
import { RENEW_BEFORE_MS } from '../../src/tracking/push-subscriptions.ts';
import type { TestAccount, TestApp } from '../support/test-app.ts';
import { expectRefusedPush, pushStory, pushSubscriptionsAt, pushTestAppForFile } from '../support/push-story.ts';

/**
 * USPS Subscriptions-Tracking end to end on real PGlite/PostgreSQL, Redis and HTTP: the service
 * subscribes tracked USPS numbers with the sandboxed USPS, which verifies our listener with a signed
 * challenge and then posts each new scan signed with the listener secret. Polling is slowed to once
 * a minute, so a delivery seen within seconds can only have come by push.
 */

let app: TestApp;
let store: TestAccount;

pushTestAppForFile((started) => ({ app, store } = started));

const sandbox = () => app.services.carrierSandbox!.state;
const { shippedOrder, tracking, subscribed, storedEvents, deliveredByPush } = pushStory(
  () => app,
  () => store,
  'usps',
);
const listener = () => `${app.baseUrl}/carriers/usps/subscriptions-tracking`;
const secret = () => app.services.push.usps!.secret;

function post(raw: string, headers: Record<string, string>) {
  return fetch(listener(), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: raw });
}

function signed(raw: string, at = new Date(), key = secret()) {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  return { 'x-usps-timestamp': timestamp, 'x-usps-hmac-signature': uspsSignature(key, timestamp, raw) };
}

const notification = (trackingNumber: string) =>
  JSON.stringify({
    trackingNumber,
    status: 'Delivered, Front Door/Porch',
    statusCategory: 'Delivered',
    trackingEvents: [
      { eventType: 'Delivered, Front Door/Porch', eventCode: '01', eventTimestamp: '2026-11-20T10:00:00-05:00' },
    ],
  });

describe('USPS Subscriptions-Tracking push', () => {
  it('subscribes a tracked number with the sandbox, which verifies the listener by its challenge', async () => {
    const number = '9400111899223197100492';
    const order = await shippedOrder(number);
    await subscribed(order.id);
    expect(sandbox().push.isSubscribed('usps', number)).toBe(true);
    const [subscription] = sandbox()
      .push.usps.list()
      .filter((s) => s.trackingNumbers.includes(number));
    expect(subscription!.listenerUrl).toBe(listener());
    expect(subscription!.secret).toBe(secret());
    expect(secret().length).toBeGreaterThanOrEqual(32);
    expect(sandbox().push.usps.challenges).toContainEqual({ listenerUrl: listener(), answered: true });
  });

  it('a signed notification delivers the order within seconds (polling is once a minute)', async () => {
    const number = '9400111899223197101499';
    const { order, deliveredAt, scriptedAt } = await deliveredByPush(number);
    expect(Date.now() - scriptedAt).toBeLessThan(15_000);
    const row = await tracking(order.id);
    expect(row.last_pushed_at).not.toBeNull();
    const events = await storedEvents(number);
    expect(events.map((e) => e.outcome)).toEqual(['applied']);
    const delivered = (await store.request('GET', `/v1/orders/${order.id}`)).body;
    expect(delivered.delivered_at).toBe(deliveredAt.toISOString().replace('.000Z', 'Z'));
  });

  it('refuses a missing, wrong or stale signature with 401 JSON and stores nothing; a good one is stored', async () => {
    const number = '9400111899223197102496';
    const raw = notification(number);
    const cases: Array<[string, Record<string, string>]> = [
      ['missing', {}],
      ['wrong secret', signed(raw, new Date(), 'x'.repeat(40))],
      ['stale', signed(raw, new Date(Date.now() - 10 * 60_000))],
      ['body changed', signed(raw.replace('Delivered', 'Dlivered'))],
    ];
    for (const [name, headers] of cases) await expectRefusedPush(await post(raw, headers), name);
    expect(await storedEvents(number)).toHaveLength(0);

    const good = await post(raw, signed(raw));
    expect(good.status).toBe(200);
    expect(await storedEvents(number)).toHaveLength(1);
    // The same digest in base64 under X-HMAC (sources disagree, A2): accepted, and a resend is stored once.
    const hex = signed(raw);
    const base64 = Buffer.from(hex['x-usps-hmac-signature'], 'hex').toString('base64');
    const again = await post(raw, { 'x-timestamp': hex['x-usps-timestamp'], 'x-hmac': base64 });
    expect(again.status).toBe(200);
    expect(await storedEvents(number)).toHaveLength(1);
  });

  it('answers the verification challenge only when signed, and the sandbox refuses a listener that does not', async () => {
    const raw = JSON.stringify({ challenge: 'c-123' });
    const answered = await post(raw, signed(raw));
    expect(answered.status).toBe(200);
    expect(await answered.json()).toEqual({ challenge: 'c-123' });
    expect((await post(raw, {})).status).toBe(401);

    const elsewhere = createUspsSubscriptions({
      baseUrl: `${app.baseUrl}/sandbox/usps`,
      clientId: 'doorstep-sandbox',
      clientSecret: 'doorstep-sandbox',
      listenerUrl: `${app.baseUrl}/not-a-listener`,
      secret: 'y'.repeat(32),
    });
    const number = '9400111899223197103493';
    expect(await elsewhere.subscribe([number])).toEqual({ subscribed: [], refused: [number] });
    expect(sandbox().push.usps.challenges).toContainEqual({
      listenerUrl: `${app.baseUrl}/not-a-listener`,
      answered: false,
    });
  });

  it('renews a day before the 25-day drop with a new subscription', async () => {
    const number = '9400111899223197104490';
    const order = await shippedOrder(number);
    await subscribed(order.id);
    const first = await tracking(order.id);
    const subscribedAt = new Date(first.push_subscribed_at!).getTime();
    expect(new Date(first.push_until!).getTime() - subscribedAt).toBe(USPS_PUSH_LIFETIME_MS);
    expect(new Date(first.push_renew_at!).getTime()).toBe(subscribedAt + USPS_PUSH_LIFETIME_MS - RENEW_BEFORE_MS);
    const before = sandbox()
      .push.usps.list()
      .filter((s) => s.trackingNumbers.includes(number)).length;

    const later = new Date(new Date(first.push_renew_at!).getTime() + 1_000);
    const renewer = pushSubscriptionsAt(app, 'usps', later);
    expect(await renewer.subscribeDue('usps')).toBeGreaterThanOrEqual(1);
    const renewed = await tracking(order.id);
    expect(new Date(renewed.push_until!).getTime()).toBe(later.getTime() + USPS_PUSH_LIFETIME_MS);
    expect(
      sandbox()
        .push.usps.list()
        .filter((s) => s.trackingNumbers.includes(number)).length,
    ).toBe(before + 1);
  });
});
