import fs from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { APP_BRIDGE_URL } from '../../src/shopify/admin/page.ts';
import { appBridgeStandinScript, type PickerProduct } from '../../src/shopify/dev/app-bridge-standin.ts';
import { fakeShopifyId, orderPayload, randomUpsTrackingNumber } from '../../src/shopify/dev/webhook-payloads.ts';
import { eventually } from '../support/workers.ts';
import { API_KEY, getJson, SECRET, sendFulfillmentCreated, videoOrderOf, type ShopifyTestApp } from './harness.ts';
import { sessionToken } from './session-token.ts';
import { oneRequestUploadHeaders } from '../../src/videos/uploads/resumable-uploads.ts';

/** What the stand-in's resource picker answers in the tests and screenshots. */
export const PICKED_PRODUCTS: PickerProduct[] = [
  {
    id: 'gid://shopify/Product/7001',
    title: 'Video gift card',
    variants: [{ id: 'gid://shopify/ProductVariant/7101', title: 'Default Title' }],
  },
  {
    id: 'gid://shopify/Product/7002',
    title: 'Gift box with video message',
    variants: [{ id: 'gid://shopify/ProductVariant/7201', title: 'Small' }],
  },
];

export interface EmbeddedAdmin {
  context: BrowserContext;
  page: Page;
  /** Script errors and console errors (CSP or integrity refusals among them) seen so far. */
  problems: string[];
  close(): Promise<void>;
}

/** The `host` Shopify passes: base64url of the shop's admin address. */
export const hostOf = (shop: string) =>
  Buffer.from(`admin.shopify.com/store/${shop.split('.')[0]}`).toString('base64url');

/** The URL Shopify loads in its iframe for an embedded app, with a fresh session token. */
export function embeddedUrl(baseUrl: string, shop: string, path = '/'): string {
  const query = new URLSearchParams({
    embedded: '1',
    host: hostOf(shop),
    id_token: sessionToken(shop, API_KEY, SECRET),
    shop,
  });
  return `${baseUrl}${path}?${query}`;
}

/**
 * Opens the app as the Shopify admin would, with Shopify's App Bridge CDN answered by our stand-in
 * (signing real session tokens with the test secret).
 */
export async function openEmbeddedAdmin(
  browser: Browser,
  baseUrl: string,
  shop: string,
  options: { path?: string; viewport?: { width: number; height: number } } = {},
): Promise<EmbeddedAdmin> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1280, height: 900 },
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  const standin = appBridgeStandinScript({ apiSecret: SECRET, products: PICKED_PRODUCTS });
  await context.route(APP_BRIDGE_URL, (route) =>
    route.fulfill({ status: 200, contentType: 'text/javascript; charset=utf-8', body: standin }),
  );
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    // The page names no icon, so Chromium's guess at /favicon.ico may 404: not the page's doing.
    const url = message.location().url;
    // An API refusal (a 404, a 422 for bad input) is the page's to show in a banner, and the tests
    // assert that banner; the browser also logs it as a failed resource, which is not a fault.
    const apiAnswer = message.text().startsWith('Failed to load resource') && url.includes('/shopify/api/');
    if (message.type() === 'error' && !url.endsWith('/favicon.ico') && !apiAnswer)
      problems.push(`console: ${message.text()} (${url})`);
  });
  await page.goto(embeddedUrl(baseUrl, shop, options.path));
  return { context, page, problems, close: () => context.close() };
}

/**
 * The recipient address the seeded store's mail server refuses once (550), so that one order's
 * video fails to send and needs the merchant: the caller's SMTP server must be told
 * (`rejectRecipient(BOUNCING_RECIPIENT, 550, 1)`).
 */
export const BOUNCING_RECIPIENT = 'nathan.bounces@example.com';

/** A shopper of the seeded store: who buys, for whom, and how far their gift's story has gone. */
interface SeedOrder {
  key: 'sent' | 'bounced' | 'awaiting_video' | 'needs_recipient' | 'unmapped_carrier' | 'tracking';
  orderName: string;
  sender: { first: string; last: string; email: string };
  recipient: { name: string; email?: string };
  recorded: boolean;
  carrier?: string;
  delivered?: boolean;
}

export const SEED_ORDERS: SeedOrder[] = [
  {
    key: 'sent',
    orderName: '#1001',
    sender: { first: 'Grace', last: 'Hopper', email: 'grace@example.com' },
    recipient: { name: 'Alan Turing', email: 'alan@example.com' },
    recorded: true,
    carrier: 'UPS',
    delivered: true,
  },
  {
    key: 'bounced',
    orderName: '#1006',
    sender: { first: 'Barbara', last: 'Liskov', email: 'barbara@example.com' },
    recipient: { name: 'Nathan Liskov', email: BOUNCING_RECIPIENT },
    recorded: true,
    carrier: 'UPS',
    delivered: true,
  },
  {
    key: 'awaiting_video',
    orderName: '#1002',
    sender: { first: 'Ada', last: 'Lovelace', email: 'ada@example.com' },
    recipient: { name: 'Charles Babbage', email: 'charles@example.com' },
    recorded: false,
  },
  {
    key: 'needs_recipient',
    orderName: '#1003',
    sender: { first: 'Katherine', last: 'Johnson', email: 'katherine@example.com' },
    recipient: { name: 'Dorothy Vaughan' },
    recorded: false,
  },
  {
    key: 'unmapped_carrier',
    orderName: '#1004',
    sender: { first: 'Margaret', last: 'Hamilton', email: 'margaret@example.com' },
    recipient: { name: 'Lauren Hamilton', email: 'lauren@example.com' },
    recorded: true,
    carrier: 'Canada Post',
  },
  {
    key: 'tracking',
    orderName: '#1005',
    sender: { first: 'Hedy', last: 'Lamarr', email: 'hedy@example.com' },
    recipient: { name: 'George Antheil', email: 'george@example.com' },
    recorded: true,
    carrier: 'UPS',
  },
];

export type SeededStore = Record<SeedOrder['key'], { orderId: string; trackingNumber: string | null }>;

/**
 * A store with one video order at each stage, made the way production makes them: signed
 * webhooks (orders/create, fulfillments/create), the sender's upload at the record link, the
 * carrier sandbox's delivery, and the app's own workers (so `app` must run with `queue`).
 */
export async function seedStore(app: ShopifyTestApp, shop: string, auth: string): Promise<SeededStore> {
  const seeded = {} as SeededStore;
  for (const seed of SEED_ORDERS) {
    const shopifyOrderId = fakeShopifyId();
    const lineItemId = fakeShopifyId();
    const base = orderPayload({
      id: shopifyOrderId,
      email: seed.sender.email,
      lines: [
        {
          id: lineItemId,
          recipientName: seed.recipient.name,
          ...(seed.recipient.email ? { recipientEmail: seed.recipient.email } : {}),
        },
      ],
    });
    const payload = {
      ...base,
      name: seed.orderName,
      customer: { ...base.customer, first_name: seed.sender.first, last_name: seed.sender.last },
      billing_address: { ...base.billing_address, name: `${seed.sender.first} ${seed.sender.last}` },
      // Without a recipient e-mail property the shipping address must not name one either.
      shipping_address: { ...base.shipping_address, name: seed.recipient.name, phone: null },
    };
    await app.webhook(shop, 'orders/create', payload);
    const orderId = await videoOrderOf(app, shop, shopifyOrderId);
    if (seed.recorded) await recordAtTheRecordLink(app, orderId, auth);
    let trackingNumber: string | null = null;
    if (seed.carrier) {
      trackingNumber = randomUpsTrackingNumber();
      await sendFulfillmentCreated(app, shop, {
        orderId: shopifyOrderId,
        lineItemIds: [lineItemId],
        trackingCompany: seed.carrier,
        trackingNumber,
      });
    }
    if (seed.delivered && trackingNumber) {
      await eventually(
        async () =>
          (await getJson(app.baseUrl, `/v1/orders/${orderId}`, auth)).body.tracking_number === trackingNumber
            ? true
            : undefined,
        15_000,
        'tracking',
      );
      const delivered = await fetch(`${app.baseUrl}/sandbox/carriers/ups/packages/${trackingNumber}/events`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ status: 'delivered' }),
      });
      if (delivered.status !== 201) throw new Error(`the sandbox answered ${delivered.status}`);
      // Sent, or (the bouncing recipient) failed for good.
      await eventually(
        async () => {
          const sends = await app.services.database.db
            .selectFrom('sends')
            .select('status')
            .where('order_id', '=', orderId)
            .where('kind', '=', 'recipient_video')
            .execute();
          return sends.some((send) => send.status === 'sent' || send.status === 'failed') ? true : undefined;
        },
        30_000,
        'the video to be sent or to fail',
      );
    }
    seeded[seed.key] = { orderId, trackingNumber };
  }
  // A video line that cannot become a video order (no e-mail for the sender): the home says so.
  const refused = orderPayload({
    id: fakeShopifyId(),
    lines: [{ id: fakeShopifyId(), recipientEmail: 'rae@example.com' }],
  });
  await app.webhook(shop, 'orders/create', {
    ...refused,
    name: REFUSED_ORDER_NAME,
    email: null,
    contact_email: null,
    customer: { ...refused.customer, email: null },
  });
  return seeded;
}

/** The seeded Shopify order whose video line made no video order. */
export const REFUSED_ORDER_NAME = '#1099';

/** The sender's upload at the record link, processed by the app's video worker. */
async function recordAtTheRecordLink(app: ShopifyTestApp, orderId: string, auth: string): Promise<void> {
  const order = (await getJson(app.baseUrl, `/v1/orders/${orderId}`, auth)).body;
  const video = fs.readFileSync(new URL('../videos/fixtures/recorded-vp8-opus.webm', import.meta.url));
  const upload = await fetch(`${app.baseUrl}${new URL(order.record_url).pathname}/uploads`, {
    method: 'POST',
    headers: oneRequestUploadHeaders(video.length, 'video/webm'),
    body: video,
  });
  if (upload.status !== 201) throw new Error(`the upload answered ${upload.status}: ${await upload.text()}`);
  await eventually(
    async () =>
      (await getJson(app.baseUrl, `/v1/orders/${orderId}`, auth)).body.video_processed === '1' ? true : undefined,
    30_000,
    'the video to be processed',
  );
}
