import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmailChannel, EmailMessage } from '../../../src/notifications/email.ts';
import { PermanentSendError } from '../../../src/notifications/errors.ts';
import {
  fakeShopifyId,
  fulfillmentPayload,
  orderPayload,
  randomUpsTrackingNumber,
} from '../../../src/shopify/dev/webhook-payloads.ts';
import { TestClock } from '../../support/clock.ts';
import { API_KEY, SECRET, startShopifyTestAppWithFakeShopify, type ShopifyTestApp, videoOrderOf } from '../harness.ts';
import type { FakeShopify } from '../fake-shopify.ts';
import { sessionToken } from '../session-token.ts';
import { API_TIMESTAMP } from '../../support/formats.ts';

/**
 * The embedded admin's JSON API over real HTTP against the real app: shops install by token exchange
 * with a fake Shopify, orders arrive through /v1 and signed webhooks, and every assertion on a
 * change reads the database and the order's timeline.
 */
let app: ShopifyTestApp;
let fake: FakeShopify;
let close: (() => Promise<void>) | undefined;
const clock = new TestClock(new Date().toISOString());
const delivered: EmailMessage[] = [];
/** A provider that refuses for good any address with "bounce" in it, and accepts the rest. */
const email: EmailChannel = {
  async send(message) {
    if (message.to.includes('bounce')) throw new PermanentSendError('550 mailbox unavailable');
    delivered.push(message);
    return { providerMessageId: `msg-${delivered.length}` };
  },
};

beforeAll(async () => {
  ({ app, fake, close } = await startShopifyTestAppWithFakeShopify({ now: clock.now, email }));
});
afterAll(async () => {
  await close?.();
});

const db = () => app.services.database.db;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests inspect JSON
type Json = any;

async function call(
  method: string,
  path: string,
  options: { shop?: string; token?: string; body?: unknown; auth?: string } = {},
): Promise<{ status: number; headers: Headers; body: Json; text: string }> {
  const headers: Record<string, string> = {};
  const authorization =
    options.auth ??
    (options.token !== undefined ? `Bearer ${options.token}` : undefined) ??
    (options.shop ? `Bearer ${sessionToken(options.shop, API_KEY, SECRET)}` : undefined);
  if (authorization) headers.Authorization = authorization;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${app.baseUrl}${path}`, {
    method,
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await response.text();
  let body: Json;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body, text };
}

const admin = (shop: string, method: string, path: string, body?: unknown) =>
  call(method, `/shopify/api${path}`, { shop, ...(body !== undefined ? { body } : {}) });
const v1 = (auth: string, method: string, path: string, body?: unknown) =>
  call(method, path, { auth, ...(body !== undefined ? { body } : {}) });

/** A shop with an account and API key, installed by token exchange on its first admin call. */
async function newShop(prefix: string): Promise<{ shop: string; auth: string; accountId: string }> {
  const shop = `${prefix}-${randomBytes(4).toString('hex')}.myshopify.com`;
  const { auth, accountId } = await app.addShop(shop);
  expect((await admin(shop, 'GET', '/home')).status).toBe(200);
  return { shop, auth, accountId };
}

async function createOrder(auth: string, fields: Record<string, unknown> = {}): Promise<string> {
  const response = await v1(auth, 'POST', '/v1/orders', {
    name: 'Ann Sender',
    email: 'ann@example.com',
    recipient_name: 'Bob Recipient',
    recipient_email: 'bob@example.com',
    ...fields,
  });
  expect(response.status).toBe(201);
  return response.body.id;
}

/** The video processor's own call once a video is processed. */
const record = (orderId: string) => app.services.orders.markRecorded(orderId, { durationTenths: 52 });
const markDeliveredByApi = async (auth: string, orderId: string) =>
  expect((await v1(auth, 'PUT', `/v1/orders/${orderId}`, { delivered: 1 })).status).toBe(200);
/** An API order whose video is recorded and whose package the API marked delivered: its message is due. */
async function dueOrder(auth: string, fields: Record<string, unknown> = {}): Promise<string> {
  const orderId = await createOrder(auth, fields);
  await record(orderId);
  await markDeliveredByApi(auth, orderId);
  return orderId;
}
/** What the dispatch tick does: sends what is due. */
const dispatch = () => app.services.dispatcher.dispatchDue(100);

async function shopifyOrder(
  shop: string,
  line: { recipientName?: string; recipientEmail?: string; recipientPhone?: string },
): Promise<{ orderId: string; name: string; shopifyOrderId: number; lineItemId: number }> {
  const shopifyOrderId = fakeShopifyId();
  const lineItemId = fakeShopifyId();
  const payload = orderPayload({ id: shopifyOrderId, lines: [{ id: lineItemId, ...line }] });
  await app.webhook(shop, 'orders/create', payload);
  return { orderId: await videoOrderOf(app, shop, shopifyOrderId), name: payload.name, shopifyOrderId, lineItemId };
}

/** The recipient's sends of an order, sorted by status (rows made in one instant have no order of their own). */
async function sendsOf(orderId: string) {
  const rows = await db()
    .selectFrom('sends')
    .select(['channel', 'status'])
    .where('order_id', '=', orderId)
    .where('kind', '=', 'recipient_video')
    .execute();
  return rows.sort((a, b) => a.status.localeCompare(b.status) || a.channel.localeCompare(b.channel));
}

async function lastTimelineEntry(orderId: string) {
  return db()
    .selectFrom('order_events')
    .select(['type', 'source'])
    .where('order_id', '=', orderId)
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
}

describe('authentication', () => {
  const endpoints: Array<[string, string]> = [
    ['GET', '/home'],
    ['GET', '/orders'],
    ['GET', '/orders/ord_x'],
    ['POST', '/orders/ord_x/mark-delivered'],
    ['POST', '/orders/ord_x/resend'],
    ['PUT', '/orders/ord_x/recipient'],
    ['POST', '/orders/ord_x/cancel'],
    ['GET', '/settings'],
    ['PUT', '/settings'],
    ['GET', '/credentials'],
    ['POST', '/credentials/rotate'],
    ['GET', '/data-exports'],
    ['GET', '/data-exports/dex_x'],
  ];
  it('refuses every endpoint without a session token, or with a forged one, as 401 JSON', async () => {
    const shop = `auth-${randomBytes(4).toString('hex')}.myshopify.com`;
    for (const [method, path] of endpoints) {
      for (const token of ['', sessionToken(shop, API_KEY, 'not-the-secret')]) {
        const response = await call(method, `/shopify/api${path}`, {
          token,
          ...(method === 'GET' ? {} : { body: {} }),
        });
        expect({ method, path, status: response.status }).toEqual({ method, path, status: 401 });
        expect(response.body).toMatchObject({ error: { type: 'unauthorized' } });
      }
    }
    // Nothing was installed for the forged shop.
    expect(await db().selectFrom('shops').select('domain').where('domain', '=', shop).execute()).toEqual([]);
  });
});

describe('GET /shopify/api/home', () => {
  it('counts the last 30 days of orders and the median from delivery to send', async () => {
    const { shop, auth } = await newShop('home');
    const start = clock.now();
    clock.set(new Date(start.getTime() - 31 * 86_400_000));
    await createOrder(auth); // too old to count
    clock.set(start);

    const first = await dueOrder(auth);
    clock.advance(90_000);
    await dispatch();
    await dueOrder(auth); // sent 30 s after its delivery
    clock.advance(30_000);
    await dispatch();
    await createOrder(auth); // awaiting its video
    await dueOrder(auth, { recipient_email: 'bounce@example.com' });
    await dispatch();
    await app.services.orders.markViewed(first);

    const home = await admin(shop, 'GET', '/home');
    expect(home.status).toBe(200);
    const now = clock.now();
    expect(home.body).toEqual({
      shop: { domain: shop, name: expect.any(String) },
      period: {
        from: new Date(now.getTime() - 30 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        to: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      },
      counts: { video_orders: 4, delivered: 3, sent: 2, viewed: 1, needs_attention: 1 },
      // 90 s and 30 s from delivery to send.
      median_delivery_to_sent_seconds: 60,
      refused_lines: [],
      time_zone: 'America/New_York',
    });
    expect(home.headers.get('content-security-policy')).toBe(
      `frame-ancestors https://${shop} https://admin.shopify.com;`,
    );
  });

  it('has no median before anything was sent', async () => {
    const { shop, auth } = await newShop('home-empty');
    await createOrder(auth);
    const home = await admin(shop, 'GET', '/home');
    expect(home.body.counts).toEqual({ video_orders: 1, delivered: 0, sent: 0, viewed: 0, needs_attention: 0 });
    expect(home.body.median_delivery_to_sent_seconds).toBeNull();
  });
});

describe('video lines that made no video order', () => {
  it("are listed on the home with their Shopify order's name and the reason, until a corrected update takes them (probe finding)", async () => {
    const { shop } = await newShop('refused');
    const shopifyOrderId = fakeShopifyId();
    const lineItemId = fakeShopifyId();
    const payload = {
      ...orderPayload({ id: shopifyOrderId, lines: [{ id: lineItemId, recipientEmail: 'kim@example.com' }] }),
      name: '#2042',
    };
    // No e-mail anywhere for the sender: the line cannot become a video order.
    const noSender = { ...payload, email: null, contact_email: null, customer: { ...payload.customer, email: null } };
    await app.webhook(shop, 'orders/create', noSender);
    const home = await admin(shop, 'GET', '/home');
    expect(home.body.refused_lines).toEqual([
      {
        shopify_order_id: String(shopifyOrderId),
        shopify_order_name: '#2042',
        reason: expect.stringContaining('the order has no customer e-mail address to send it from'),
        refused_at: expect.stringMatching(API_TIMESTAMP),
      },
    ]);
    // The reason names the field, never the customer's data.
    expect(home.body.refused_lines[0].reason).not.toContain('kim@');
    // The merchant adds the e-mail in Shopify: orders/updated makes the video order, and the line leaves the list.
    await app.webhook(shop, 'orders/updated', payload);
    expect(await videoOrderOf(app, shop, shopifyOrderId)).toMatch(/^ord_/);
    expect((await admin(shop, 'GET', '/home')).body.refused_lines).toEqual([]);
  });
});

describe("the shop's time zone", () => {
  it('rides with every answer that holds dates: read at install, and once for a shop installed before Doorstep kept it', async () => {
    const { shop, auth } = await newShop('zone');
    const orderId = await createOrder(auth);
    for (const path of ['/home', '/orders', `/orders/${orderId}`, '/settings', '/data-exports'])
      expect((await admin(shop, 'GET', path)).body.time_zone, path).toBe('America/New_York');

    // A shop installed before migration 036: its zone is read from Shopify on the next answer, and kept.
    await db().updateTable('shops').set({ iana_timezone: null }).where('domain', '=', shop).execute();
    fake.timeZones.set(shop, 'Asia/Tokyo');
    expect((await admin(shop, 'GET', `/orders/${orderId}`)).body.time_zone).toBe('Asia/Tokyo');
    const row = await db().selectFrom('shops').select('iana_timezone').where('domain', '=', shop).executeTakeFirst();
    expect(row?.iana_timezone).toBe('Asia/Tokyo');

    // Shopify unreachable for a shop without one: the page still loads, in UTC (named as such on the page).
    await db().updateTable('shops').set({ iana_timezone: null }).where('domain', '=', shop).execute();
    fake.graphqlFailures.push(500, 500, 500, 500);
    const answer = await admin(shop, 'GET', '/home');
    fake.graphqlFailures.length = 0;
    expect(answer.status).toBe(200);
    expect(answer.body.time_zone).toBe('UTC');
  });
});

describe('orders', () => {
  let shop: string;
  let auth: string;
  const ids: Record<string, string> = {};
  let shopifyNames: Record<string, string> = {};
  let shopifyIds: Record<string, number> = {};
  let trackingNumber: string;
  /** Newest first, as the list returns them. */
  let newestFirst: string[];

  beforeAll(async () => {
    ({ shop, auth } = await newShop('orders'));
    // Orders that need sending first (dispatch sends every due message), the rest after.
    ids.sent = await dueOrder(auth, { name: 'Sam Sent', recipient_email: 'sent@example.com' });
    ids.viewed = await dueOrder(auth, { name: 'Vera Viewed' });
    ids.needs_attention = await dueOrder(auth, {
      name: 'Fay Failed',
      recipient_name: 'Bea Bounce',
      recipient_email: 'bounce@example.com',
    });
    await dispatch();
    await app.services.orders.markViewed(ids.viewed);

    ids.awaiting_video = await createOrder(auth, {
      name: 'Alice Awaiting',
      email: 'Alice.Awaiting@Example.com',
      recipient_name: 'Rita Receiver',
      recipient_email: 'rita.receiver@example.com',
    });
    const noRecipient = await shopifyOrder(shop, { recipientName: 'Nora Nobody' });
    ids.needs_recipient = noRecipient.orderId;
    const unshipped = await shopifyOrder(shop, { recipientName: 'Walt Waiting', recipientEmail: 'walt@example.com' });
    ids.waiting_on_shopify = unshipped.orderId;
    await record(ids.waiting_on_shopify);
    shopifyNames = { needs_recipient: noRecipient.name, waiting_on_shopify: unshipped.name };
    shopifyIds = { needs_recipient: noRecipient.shopifyOrderId };
    trackingNumber = randomUpsTrackingNumber();
    ids.tracking = await createOrder(auth, { name: 'Tom Tracked', carrier: 'ups', tracking_number: trackingNumber });
    await record(ids.tracking);
    ids.delivered = await dueOrder(auth, { name: 'Dee Delivered' });
    ids.scheduled = await createOrder(auth, {
      name: 'Sid Scheduled',
      send_trigger: 'date',
      send_on: new Date(clock.now().getTime() + 7 * 86_400_000).toISOString(),
    });
    await record(ids.scheduled);
    ids.cancelled = await createOrder(auth, { name: 'Cal Cancelled' });
    await app.services.orders.cancel(ids.cancelled, 'api', 'the customer changed their mind');
    newestFirst = [
      ids.cancelled,
      ids.scheduled,
      ids.delivered,
      ids.tracking,
      ids.waiting_on_shopify,
      ids.needs_recipient,
      ids.awaiting_video,
      ids.needs_attention,
      ids.viewed,
      ids.sent,
    ] as string[];
  });

  it('lists newest first, each order with its stage in words', async () => {
    const list = await admin(shop, 'GET', '/orders');
    expect(list.status).toBe(200);
    expect(list.body.has_more).toBe(false);
    expect(list.body.next_cursor).toBeNull();
    expect(list.body.data.map((o: Json) => o.id)).toEqual(newestFirst);
    const byId = new Map(list.body.data.map((o: Json) => [o.id, o]));
    for (const [stage, id] of Object.entries(ids))
      expect({ id, stage: (byId.get(id) as Json).stage }).toEqual({ id, stage });
    expect(byId.get(ids.awaiting_video)).toEqual({
      id: ids.awaiting_video,
      shopify_order_name: null,
      test_gift: false,
      sender_name: 'Alice Awaiting',
      sender_email: 'Alice.Awaiting@Example.com',
      recipient_name: 'Rita Receiver',
      stage: 'awaiting_video',
      stage_label: 'Awaiting video',
      created_at: expect.stringMatching(API_TIMESTAMP),
      delivered_at: null,
      sent_at: null,
      viewed_at: null,
      attention: null,
    });
    expect(byId.get(ids.needs_recipient)).toMatchObject({ shopify_order_name: shopifyNames.needs_recipient });
    // Its page links to the order in the Shopify admin (App Bridge opens shopify:// links there).
    const linked = await admin(shop, 'GET', `/orders/${ids.needs_recipient}`);
    expect(linked.body.shopify_order_url).toBe(`shopify://admin/orders/${shopifyIds.needs_recipient}`);
    expect((byId.get(ids.needs_attention) as Json).attention).toBe(
      "Sending the video to the recipient by e-mail failed: 550 mailbox unavailable. Correct the recipient's details if needed, then resend.",
    );
    expect(byId.get(ids.viewed)).toMatchObject({
      stage_label: 'Viewed',
      sent_at: expect.any(String),
      viewed_at: expect.any(String),
    });
  });

  it('filters by every stage', async () => {
    for (const stage of [
      'awaiting_video',
      'needs_recipient',
      'tracking',
      'waiting_on_shopify',
      'delivered',
      'sent',
      'viewed',
      'needs_attention',
      'scheduled',
      'cancelled',
    ]) {
      const list = await admin(shop, 'GET', `/orders?stage=${stage}`);
      expect({ stage, ids: list.body.data.map((o: Json) => o.id) }).toEqual({ stage, ids: [ids[stage]] });
    }
    const wrong = await admin(shop, 'GET', '/orders?stage=lost');
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.fields.stage).toMatch(/^must be one of awaiting_video/);
  });

  it('searches sender name and e-mail, recipient name and e-mail, and the Shopify order name, ignoring case', async () => {
    const search = async (q: string) =>
      (await admin(shop, 'GET', `/orders?q=${encodeURIComponent(q)}`)).body.data.map((o: Json) => o.id);
    expect(await search('alice awaiting')).toEqual([ids.awaiting_video]);
    expect(await search('ALICE.AWAITING@EXAMPLE')).toEqual([ids.awaiting_video]);
    expect(await search('rita receiver')).toEqual([ids.awaiting_video]);
    expect(await search('Rita.Receiver@')).toEqual([ids.awaiting_video]);
    expect(await search('bea bounce')).toEqual([ids.needs_attention]);
    expect(await search(shopifyNames.waiting_on_shopify!)).toEqual([ids.waiting_on_shopify]);
    expect(await search('walt')).toEqual([ids.waiting_on_shopify]);
    // LIKE's wildcards are plain characters in a search.
    expect(await search('%')).toEqual([]);
    expect(await search('_')).toEqual([]);
    // Search and stage combine.
    expect((await admin(shop, 'GET', '/orders?q=alice&stage=sent')).body.data).toEqual([]);
  });

  it('pages with a cursor, with no duplicate and no gap', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Json = await admin(shop, 'GET', `/orders?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.data.map((o: Json) => o.id));
      expect(page.body.has_more).toBe(page.body.next_cursor !== null);
      cursor = page.body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(4);
    expect(seen).toEqual(newestFirst);
    for (const query of ['limit=0', 'limit=101', 'limit=x', 'cursor=nope', 'unknown=1'])
      expect({ query, status: (await admin(shop, 'GET', `/orders?${query}`)).status }).toEqual({ query, status: 422 });
    const twice = await admin(shop, 'GET', '/orders?limit=3&limit=4');
    expect(twice.body.error.fields).toEqual({ limit: 'was given 2 times: give it once' });
  });

  it('shows an order: the /v1 JSON, its stage and reason, tracking, warnings and its whole timeline in words', async () => {
    // The carrier did not know the number when it was set: a warning, until the carrier knows it.
    let detail = await admin(shop, 'GET', `/orders/${ids.tracking}`);
    expect(detail.status).toBe(200);
    expect(detail.body.order).toEqual((await v1(auth, 'GET', `/v1/orders/${ids.tracking}`)).body);
    expect(detail.body).toMatchObject({
      shopify_order_name: null,
      stage: 'tracking',
      stage_label: 'On its way',
      waiting_reason: 'Waiting for UPS to deliver the package; the video is sent on delivery.',
      attention: null,
      tracking: {
        carrier: 'ups',
        tracking_number: trackingNumber,
        // The validation's answer is the first look (one carrier call for a new number).
        status: 'not_found',
        status_label: 'does not know this tracking number yet',
        last_checked_at: expect.stringMatching(API_TIMESTAMP),
        next_check_at: expect.any(String),
        estimated_delivery_at: null,
      },
      warnings: [expect.stringContaining("is not yet in UPS's system")],
      record_url: detail.body.order.record_url,
      actions: { mark_delivered: true, resend: false, edit_recipient: true, cancel: true },
      action_refusals: {
        mark_delivered: null,
        resend: expect.stringMatching(/^Nothing to resend yet: /),
        edit_recipient: null,
        cancel: null,
      },
    });

    // The carrier learns of the package and gives an estimate; tracking polls it.
    const response = await fetch(`${app.baseUrl}/sandbox/carriers/ups/packages/${trackingNumber}/events`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ status: 'in_transit', estimated_delivery_at: '2030-01-02T18:00:00Z' }),
    });
    expect(response.status).toBe(201);
    clock.advance(60_000);
    for (const claim of await app.services.poller.claim('ups', 5))
      await app.services.poller.pollBatch('ups', claim.token);
    detail = await admin(shop, 'GET', `/orders/${ids.tracking}`);
    expect(detail.body.tracking).toEqual({
      carrier: 'ups',
      tracking_number: trackingNumber,
      status: 'in_transit',
      status_label: 'in transit',
      last_checked_at: expect.any(String),
      next_check_at: expect.any(String),
      estimated_delivery_at: '2030-01-02T18:00:00Z',
    });
    expect(detail.body.warnings).toEqual([]);
    const timeline = detail.body.timeline as Json[];
    expect(timeline.map((entry) => [entry.source_label, entry.title])).toEqual([
      ['your API', 'The video order was created'],
      ['your API', 'The package ships with UPS'],
      // UPS reported on the number later: the early warning is history, not an alarm.
      ['your API', 'The carrier did not know the tracking number at first'],
      ['the carrier', 'UPS: does not know this tracking number yet'],
      ['Doorstep', 'The sender recorded the video'],
      ['the carrier', 'UPS: in transit'],
    ]);
    expect(timeline[1]).toMatchObject({ source: 'api', detail: `Tracking number ${trackingNumber}.` });
    // The page's player plays the processed video from this app; an API order has no Shopify order to open.
    expect(detail.body.video_url).toBe(`/watch/${detail.body.order.uuid}/video`);
    expect(detail.body.shopify_order_url).toBeNull();
    for (const entry of timeline) {
      expect(entry.at).toMatch(API_TIMESTAMP);
      expect(`${entry.title} ${entry.detail}`).not.toMatch(/\b[a-z]+\.[a-z_]+\b/); // no event code
    }
  });

  it('says why a Shopify order waits, and shows its Shopify name', async () => {
    const detail = await admin(shop, 'GET', `/orders/${ids.waiting_on_shopify}`);
    expect(detail.body).toMatchObject({
      shopify_order_name: shopifyNames.waiting_on_shopify,
      stage: 'waiting_on_shopify',
      waiting_reason: 'Waiting for the order to ship: Shopify has no fulfillment with the gift yet.',
      tracking: null,
    });
    expect(detail.body.timeline[0]).toMatchObject({
      source: 'shopify',
      source_label: 'Shopify',
      title: 'The video order was created from the Shopify order',
    });
  });

  it("shows a Shopify order's price in its own currency: yen have no cents (probe finding: ¥1,500 was 150000 and shown in dollars)", async () => {
    const { shop: yenShop } = await newShop('yen');
    const shopifyOrderId = fakeShopifyId();
    const payload = orderPayload({
      id: shopifyOrderId,
      lines: [{ id: fakeShopifyId(), recipientName: 'Kei', recipientEmail: 'kei@example.com', price: '1500' }],
    });
    await app.webhook(yenShop, 'orders/create', { ...payload, currency: 'JPY', presentment_currency: 'JPY' });
    const detail = await admin(yenShop, 'GET', `/orders/${await videoOrderOf(app, yenShop, shopifyOrderId)}`);
    expect(detail.body).toMatchObject({ order: { price: 1500 }, price_currency: 'JPY' });
    expect((await admin(shop, 'GET', `/orders/${ids.awaiting_video}`)).body.price_currency).toBe('USD');
  });

  it('says how many of the gift’s packages arrived while it waits for the last', async () => {
    const { shop: giftShop } = await newShop('packages');
    const [video, candle, vase] = [fakeShopifyId(), fakeShopifyId(), fakeShopifyId()];
    const shopifyOrderId = fakeShopifyId();
    // A video sold as an add-on waits for every shipped item: two packages here.
    await app.webhook(
      giftShop,
      'orders/create',
      orderPayload({
        id: shopifyOrderId,
        lines: [
          { id: video, recipientName: 'Pat', recipientEmail: 'pat@example.com', requiresShipping: false },
          { id: candle, marker: false },
          { id: vase, marker: false },
        ],
      }),
    );
    const orderId = await videoOrderOf(app, giftShop, shopifyOrderId);
    await record(orderId);
    const ship = (lineItemId: number, company: string, number: string, delivered: boolean, minutesAgo: number) =>
      app.webhook(
        giftShop,
        'fulfillments/create',
        fulfillmentPayload({
          id: fakeShopifyId(),
          orderId: shopifyOrderId,
          lineItemIds: [lineItemId],
          trackingCompany: company,
          trackingNumber: number,
          shipmentStatus: delivered ? 'delivered' : null,
          createdAt: new Date(Date.now() - minutesAgo * 60_000).toISOString(),
          updatedAt: new Date().toISOString(),
        }),
      );
    // The UPS package first (one package known, not delivered), then the other arrives delivered.
    const ups = randomUpsTrackingNumber();
    await ship(vase, 'UPS', ups, false, 60);
    await ship(candle, 'Canada Post', 'CP123456789CA', true, 30);
    const detail = await admin(giftShop, 'GET', `/orders/${orderId}`);
    expect(detail.body).toMatchObject({
      stage: 'tracking',
      tracking: { carrier: 'ups', tracking_number: ups },
      waiting_reason:
        'Waiting for UPS to deliver the package; the video is sent on delivery. 1 of 2 packages delivered; the video goes when the last one arrives.',
    });
  });

  it('a link made before Shopify order names were kept learns the name from the next orders/updated', async () => {
    const { shop: oldShop } = await newShop('old-link');
    const shopifyOrderId = fakeShopifyId();
    const payload = orderPayload({
      id: shopifyOrderId,
      lines: [{ id: fakeShopifyId(), recipientEmail: 'old@example.com' }],
    });
    await app.webhook(oldShop, 'orders/create', payload);
    const orderId = await videoOrderOf(app, oldShop, shopifyOrderId);
    // As migration 009 leaves links made before it.
    await db()
      .updateTable('shopify_order_links')
      .set({ shopify_order_name: null })
      .where('order_id', '=', orderId)
      .execute();
    const search = async () =>
      (await admin(oldShop, 'GET', `/orders?q=${encodeURIComponent(payload.name)}`)).body.data.map((o: Json) => o.id);
    expect(await search()).toEqual([]);
    await app.webhook(oldShop, 'orders/updated', { ...payload, updated_at: '2026-12-01T11:00:00-05:00' });
    expect(await search()).toEqual([orderId]);
  });

  it("answers 404 for another shop's order, on every route", async () => {
    const other = await newShop('other');
    for (const [method, path] of [
      ['GET', ''],
      ['POST', '/mark-delivered'],
      ['POST', '/resend'],
      ['POST', '/cancel'],
    ] as const) {
      const response = await admin(other.shop, method, `/orders/${ids.tracking}${path}`);
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      expect(response.body.error.type).toBe('not_found');
    }
    const edit = await admin(other.shop, 'PUT', `/orders/${ids.tracking}/recipient`, { recipient_name: 'Mallory' });
    expect(edit.status).toBe(404);
    expect(
      (
        await db()
          .selectFrom('orders')
          .select('recipient_name')
          .where('id', '=', ids.tracking!)
          .executeTakeFirstOrThrow()
      ).recipient_name,
    ).toBe('Bob Recipient');
    expect((await admin(other.shop, 'GET', '/orders/ord_nothing')).status).toBe(404);
  });

  it('marks an order delivered through OrderService (source admin), once', async () => {
    const marked = await admin(shop, 'POST', `/orders/${ids.tracking}/mark-delivered`);
    expect(marked.status).toBe(200);
    expect(marked.body).toMatchObject({ stage: 'delivered', actions: { mark_delivered: false } });
    const row = await db().selectFrom('orders').selectAll().where('id', '=', ids.tracking!).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'delivered', delivered: true });
    expect(marked.body.timeline.at(-2)).toMatchObject({
      source: 'admin',
      source_label: 'you, in the admin',
      title: 'You marked the order delivered',
    });
    // Delivery queued the video: the notifications module followed the order's own event.
    expect(await sendsOf(ids.tracking!)).toEqual([{ channel: 'email', status: 'pending' }]);
    const again = await admin(shop, 'POST', `/orders/${ids.tracking}/mark-delivered`);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ type: 'conflict', message: 'The order is already delivered.' });
  });

  it('edits the recipient, then resends through the dispatcher; the video goes out', async () => {
    const id = ids.needs_attention!;
    let detail = await admin(shop, 'GET', `/orders/${id}`);
    expect(detail.body.actions).toEqual({ mark_delivered: false, resend: true, edit_recipient: true, cancel: true });

    for (const body of [{}, { recipient_email: 'not an address' }, { recipient_phone: '12' }, { name: 'x' }]) {
      const refused = await admin(shop, 'PUT', `/orders/${id}/recipient`, body);
      expect({ body, status: refused.status }).toEqual({ body, status: 422 });
    }
    const edited = await admin(shop, 'PUT', `/orders/${id}/recipient`, {
      recipient_name: 'Bea Better',
      recipient_email: 'bea@example.com',
    });
    expect(edited.status).toBe(200);
    expect(edited.body.order).toMatchObject({ recipient_name: 'Bea Better', recipient_email: 'bea@example.com' });
    expect(edited.body.timeline.at(-1)).toMatchObject({
      source: 'admin',
      title: 'The order details were changed',
      detail: "Changed: recipient's name, recipient's e-mail.",
    });
    // Editing alone never re-sends: the failed send still needs a resend.
    expect(edited.body.stage).toBe('needs_attention');

    const resent = await admin(shop, 'POST', `/orders/${id}/resend`);
    expect(resent.status).toBe(200);
    expect(resent.body).toMatchObject({ stage: 'delivered', attention: null, actions: { resend: false } });
    expect(await sendsOf(id)).toEqual([
      { channel: 'email', status: 'failed' },
      { channel: 'email', status: 'pending' },
    ]);
    expect(await lastTimelineEntry(id)).toEqual({ type: 'send.resend_requested', source: 'admin' });
    const twice = await admin(shop, 'POST', `/orders/${id}/resend`);
    expect(twice.status).toBe(409);
    expect(twice.body.error.message).toBe('The video is already waiting to be sent; it has not gone yet.');

    await dispatch();
    expect(delivered.filter((message) => message.to === 'bea@example.com')).toHaveLength(1);
    detail = await admin(shop, 'GET', `/orders/${id}`);
    expect(detail.body).toMatchObject({ stage: 'sent', record_url: null });
    expect(detail.body.actions).toEqual({ mark_delivered: false, resend: false, edit_recipient: true, cancel: false });
    const cancelSent = await admin(shop, 'POST', `/orders/${id}/cancel`);
    expect(cancelSent.status).toBe(409);
    expect(cancelSent.body.error.message).toMatch(/already been sent/);
  });

  it('gives an order without a recipient one, sent the way it can now be', async () => {
    const id = ids.needs_recipient!;
    const edited = await admin(shop, 'PUT', `/orders/${id}/recipient`, { recipient_phone: '+1 (415) 555-0199' });
    expect(edited.status).toBe(200);
    expect(edited.body.order).toMatchObject({ recipient_phone: '+14155550199', send_method: 'sms' });
    expect(edited.body.stage).toBe('awaiting_video');
  });

  it('cancels through OrderService (source admin), once; a cancelled order refuses every action', async () => {
    const id = ids.awaiting_video!;
    const cancelled = await admin(shop, 'POST', `/orders/${id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ stage: 'cancelled', record_url: null, waiting_reason: null });
    expect(cancelled.body.actions).toEqual({
      mark_delivered: false,
      resend: false,
      edit_recipient: false,
      cancel: false,
    });
    expect(cancelled.body.timeline.at(-1)).toMatchObject({
      source: 'admin',
      title: 'The order was cancelled',
      detail: 'Cancelled by the merchant in the Doorstep admin.',
    });
    const row = await db()
      .selectFrom('orders')
      .select(['status', 'cancelled_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('cancelled');
    expect(row.cancelled_at).not.toBeNull();
    for (const [method, path, body] of [
      ['POST', '/cancel', undefined],
      ['POST', '/mark-delivered', undefined],
      ['POST', '/resend', undefined],
      ['PUT', '/recipient', { recipient_name: 'Z' }],
    ] as const) {
      const refused = await admin(shop, method, `/orders/${id}${path}`, body);
      expect({ path, status: refused.status, message: refused.body.error.message }).toEqual({
        path,
        status: 409,
        message: 'The order is cancelled.',
      });
    }
  });
});

describe('settings', () => {
  it('round-trips every writable field and lists the tracking companies still unmapped', async () => {
    const { shop, auth } = await newShop('settings');
    const initial = await admin(shop, 'GET', '/settings');
    expect(initial.status).toBe(200);
    expect(initial.body).toEqual({
      shop,
      active: true,
      fallback_delivered: true,
      carrier_aliases: {},
      video_product_ids: [],
      video_variant_ids: [],
      gift_packages: 'all_shipped_items',
      default_send_method: 'email_and_sms',
      logo_url: null,
      not_watched_note: true,
      locale: 'en',
      accent_color: null,
      font: null,
      // Added before it installed (`shops add`), so not read from Shopify (test/shopify/setup-guide.test.ts).
      contact_email: null,
      unmapped_tracking_companies: [],
      time_zone: 'America/New_York',
    });

    const order = await shopifyOrder(shop, { recipientName: 'Gus', recipientEmail: 'gus@example.com' });
    for (const [company, count] of [
      ['Canada Post', 2],
      ['Royal Mail', 1],
      ['UPS', 1],
    ] as const) {
      for (let i = 0; i < count; i++)
        await app.webhook(
          shop,
          'fulfillments/create',
          fulfillmentPayload({
            id: fakeShopifyId(),
            orderId: order.shopifyOrderId,
            lineItemIds: [order.lineItemId],
            trackingCompany: company,
            trackingNumber: `X${i}${company.length}`,
            updatedAt: new Date(Date.now() + i * 1000).toISOString(),
          }),
        );
    }
    const listed = await admin(shop, 'GET', '/settings');
    expect(listed.body.unmapped_tracking_companies).toEqual([
      { name: 'Canada Post', fulfillments: 2, last_seen_at: expect.any(String) },
      { name: 'Royal Mail', fulfillments: 1, last_seen_at: expect.any(String) },
    ]);

    const change = {
      fallback_delivered: false,
      carrier_aliases: { 'Royal Mail': 'usps' },
      video_product_ids: ['123'],
      video_variant_ids: ['456'],
      gift_packages: 'gift_item',
      default_send_method: 'email',
      locale: 'fr',
      accent_color: '#1a5e63',
      font: 'classic',
      contact_email: 'hello@maplethread.example',
    };
    const put = await admin(shop, 'PUT', '/settings', change);
    expect(put.status).toBe(200);
    const expected = {
      ...initial.body,
      ...change,
      carrier_aliases: { 'Royal Mail': 'usps' },
      unmapped_tracking_companies: [{ name: 'Canada Post', fulfillments: 2, last_seen_at: expect.any(String) }],
    };
    expect(put.body).toEqual(expected);
    expect((await admin(shop, 'GET', '/settings')).body).toEqual(expected);
    expect(
      await db().selectFrom('shops').select('default_send_method').where('domain', '=', shop).executeTakeFirstOrThrow(),
    ).toEqual({
      default_send_method: 'email',
    });

    // A subset changes only itself.
    const partial = await admin(shop, 'PUT', '/settings', { default_send_method: 'sms' });
    expect(partial.body).toEqual({ ...expected, default_send_method: 'sms' });

    for (const body of [
      { default_send_method: 'fax' },
      { carrier_aliases: { X: 'dhl' } },
      { unknown: 1 },
      { locale: 'de' },
    ]) {
      const refused = await admin(shop, 'PUT', '/settings', body);
      expect({ body, status: refused.status }).toEqual({ body, status: 422 });
    }
    // Each refusal in words a merchant knows, naming the setting (billing probe: zod's own words).
    const words = await admin(shop, 'PUT', '/settings', { carrier_aliases: { '': 'ups' }, video_product_ids: [-1] });
    expect(words.body.error).toMatchObject({
      message: 'The settings change is not valid.',
      fields: {
        carrier_aliases: 'must map carrier names of 1 to 100 characters to ups, fedex or usps',
        'video_product_ids.0': 'must be a list of Shopify product ids, like ["8123456789"]',
      },
    });
    // The shop's language is the account's: its pages and messages speak it (a region tag is its language).
    expect((await admin(shop, 'PUT', '/settings', { locale: 'es-MX' })).body.locale).toBe('es');
    expect((await v1(auth, 'GET', '/v1/account/settings')).body.locale).toBe('es');

    // The Shopify mapping sends a line that gives both an e-mail and a phone the shop's default way.
    await admin(shop, 'PUT', '/settings', { default_send_method: 'email' });
    const both = await shopifyOrder(shop, {
      recipientName: 'Hal',
      recipientEmail: 'hal@example.com',
      recipientPhone: '+14155550123',
    });
    expect((await v1(auth, 'GET', `/v1/orders/${both.orderId}`)).body.send_method).toBe('email');
  });
});

describe('credentials', () => {
  it('shows the app id and a hint, never the key; rotating shows the new key once and the old one stops working', async () => {
    const { shop, auth } = await newShop('credentials');
    expect((await v1(auth, 'GET', '/v1/orders')).status).toBe(200);
    const appId = Buffer.from(auth.slice('Basic '.length), 'base64').toString().split(':')[0];
    const oldKey = Buffer.from(auth.slice('Basic '.length), 'base64').toString().split(':')[1]!;

    const shown = await admin(shop, 'GET', '/credentials');
    expect(shown.body).toEqual({ app_id: appId, api_key_hint: `dsk_…${oldKey.slice(-4)}` });
    expect(shown.text).not.toContain(oldKey);

    const rotated = await admin(shop, 'POST', '/credentials/rotate');
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    expect(rotated.body).toEqual({ app_id: appId, api_key: expect.stringMatching(/^dsk_/) });
    const newKey = rotated.body.api_key as string;
    expect(newKey).not.toBe(oldKey);

    expect((await v1(auth, 'GET', '/v1/orders')).status).toBe(401);
    const newAuth = `Basic ${Buffer.from(`${appId}:${newKey}`).toString('base64')}`;
    expect((await v1(newAuth, 'GET', '/v1/orders')).status).toBe(200);
    const after = await admin(shop, 'GET', '/credentials');
    expect(after.body).toEqual({ app_id: appId, api_key_hint: `dsk_…${newKey.slice(-4)}` });
    expect(after.text).not.toContain(newKey);
  });
});

describe('data exports', () => {
  it('lists the shop’s exports and downloads one as an attachment; another shop’s is not found', async () => {
    const { shop, auth } = await newShop('exports');
    const order = await shopifyOrder(shop, { recipientName: 'Ivy', recipientEmail: 'ivy@example.com' });
    expect(order.orderId).toMatch(/^ord_/);
    await app.webhook(shop, 'customers/data_request', {
      shop_id: 1,
      shop_domain: shop,
      customer: { id: 7000000001, email: 'ann.sender@example.com', phone: null },
      orders_requested: [],
      data_request: { id: 4242 },
    });
    const list = await admin(shop, 'GET', '/data-exports');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      {
        id: expect.stringMatching(/^dex_/),
        data_request_id: '4242',
        customer_id: '7000000001',
        created_at: expect.stringMatching(API_TIMESTAMP),
      },
    ]);
    const id = list.body.data[0].id as string;
    const download = await admin(shop, 'GET', `/data-exports/${id}`);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="doorstep-data-export-${id}.json"`);
    expect(download.headers.get('content-type')).toMatch(/^application\/json/);
    // The same export the /v1 route serves (one implementation).
    expect(download.body).toEqual((await v1(auth, 'GET', `/v1/shopify/data-exports/${id}`)).body);
    expect(download.body.video_orders.map((o: Json) => o.id)).toEqual([order.orderId]);

    const other = await newShop('exports-other');
    expect((await admin(other.shop, 'GET', `/data-exports/${id}`)).status).toBe(404);
    expect((await admin(other.shop, 'GET', '/data-exports')).body).toEqual({
      data: [],
      time_zone: 'America/New_York',
    });
  });
});
