import { expect } from 'vitest';
import type { Services } from '../../src/app.ts';
import type { EmailChannel } from '../../src/notifications/email.ts';
import {
  fakeShopifyId,
  fulfillmentEventPayload,
  fulfillmentPayload,
  orderPayload,
  signedWebhook,
} from '../../src/shopify/dev/webhook-payloads.ts';
import type { ShopifyServices } from '../../src/shopify/index.ts';
import { routeShopifyRequestsTo } from '../../src/shopify/library.ts';
import { registerShop } from '../../src/shopify/shops.ts';
import { startFakeShopify, type FakeShopify } from './fake-shopify.ts';
import type { TestDatabase } from '../support/database.ts';
import { forFile } from '../support/for-file.ts';
import { startTestApp } from '../support/test-app.ts';
import { eventually, startTestWorkers } from '../support/workers.ts';

export const SECRET = 'test-shopify-secret';
export const API_KEY = 'test-shopify-key';

export interface ShopifyTestApp {
  baseUrl: string;
  services: Services;
  shopify: ShopifyServices;
  /**
   * POSTs a signed webhook; returns the HTTP status and the webhook id. Without `queue`, the receipt
   * is processed before this returns, and a processing error is thrown from here — so it fails the
   * test that sent it — unless the test says it expects one (`expectProcessingError`), in which case
   * it is returned as `processingError` (and its absence is the error).
   */
  webhook(
    shop: string,
    topic: string,
    payload: unknown,
    options?: {
      webhookId?: string;
      eventId?: string;
      secret?: string;
      rawBody?: string;
      expectProcessingError?: boolean;
      /**
       * The signed body is a replay under this header: the shop never had the order. Otherwise an
       * orders/* webhook places its order in the fake Shopify's shop first (when there is a fake),
       * as Shopify sends an order's webhooks only to the shop it was placed in.
       */
      replay?: boolean;
    },
  ): Promise<{ status: number; webhookId: string; body: unknown; processingError?: Error }>;
  /**
   * Receipts sent through `webhook` (not expecting an error) whose processing has failed so far:
   * with `queue` the worker processes them out of sight, so a test asserts this is empty.
   */
  processingErrors(): Promise<Array<{ webhookId: string; topic: string; error: string }>>;
  addShop(shop: string): Promise<{ accountId: string; auth: string }>;
  close(): Promise<void>;
}

/**
 * The real app (createHttpApp) with the Shopify routes mounted the way the lead wires them: before
 * the /v1 auth for /shopify/*, after it for /v1/shopify/*. Webhooks go through a real BullMQ queue
 * and worker on the test Redis when `queue` is set; otherwise the receipts are processed by calling
 * the use case (`shopify.processing.process`). Either way a processing error fails the test: thrown
 * from `webhook` when processed in place, reported by `processingErrors` when a worker processed it.
 */
export async function startShopifyTestApp(
  options: {
    queue?: boolean;
    env?: Record<string, string>;
    now?: () => Date;
    email?: EmailChannel;
    /** A database the test opened itself (test/support/statement-log.ts records its statements). */
    database?: TestDatabase;
    /** 'carrier': the sandboxed carriers are polled on the real schedule (ServiceOverrides.sandboxSchedule). */
    sandboxSchedule?: 'demo' | 'carrier';
    /** The fake Shopify the app's Admin API calls reach: `webhook` places each order in its shop there. */
    fake?: FakeShopify;
  } = {},
): Promise<ShopifyTestApp> {
  const app = await startTestApp({
    ...(options.database ? { database: options.database } : {}),
    sandboxPollIntervalMs: 200,
    env: { SHOPIFY_API_KEY: API_KEY, SHOPIFY_API_SECRET: SECRET, ...options.env },
    ...(options.now ? { now: options.now } : {}),
    ...(options.email ? { email: options.email } : {}),
    ...(options.sandboxSchedule ? { sandboxSchedule: options.sandboxSchedule } : {}),
  });
  const { services } = app;
  const shopify = services.shopify;
  // With `queue`, the real workers process webhooks from BullMQ; without, the test runs the use case.
  const workers = options.queue ? await startTestWorkers(services) : null;
  const mustSucceed: string[] = [];
  return {
    baseUrl: app.baseUrl,
    services,
    shopify,
    async webhook(shop, topic, payload, opts = {}) {
      const orderId = (payload as { id?: unknown } | null)?.id;
      if (options.fake && !opts.replay && topic.startsWith('orders/') && typeof orderId === 'number')
        options.fake.placeOrder(shop, orderId);
      const signed = signedWebhook(opts.secret ?? SECRET, shop, topic, payload, {
        ...(opts.webhookId ? { webhookId: opts.webhookId } : {}),
        ...(opts.eventId ? { eventId: opts.eventId } : {}),
        ...(opts.rawBody ? { rawBody: opts.rawBody } : {}),
      });
      const response = await fetch(`${app.baseUrl}/shopify/webhooks`, {
        method: 'POST',
        headers: signed.headers,
        body: signed.body,
      });
      const text = await response.text();
      const result = {
        status: response.status,
        webhookId: signed.webhookId,
        body: text ? JSON.parse(text) : undefined,
      };
      if (!opts.expectProcessingError) mustSucceed.push(signed.webhookId);
      // A duplicate (same webhook or event id) was not stored again: nothing of its own to process.
      if (options.queue || response.status !== 200 || result.body?.duplicate === true) return result;
      try {
        await shopify.processing.process(signed.webhookId);
      } catch (error) {
        if (!opts.expectProcessingError) throw error;
        return { ...result, processingError: error as Error };
      }
      if (opts.expectProcessingError)
        throw new Error(`${topic} ${signed.webhookId} was expected to fail processing, and did not`);
      return result;
    },
    async processingErrors() {
      if (mustSucceed.length === 0) return [];
      const rows = await services.database.db
        .selectFrom('webhook_receipts')
        .select(['webhook_id', 'topic', 'error'])
        .where('webhook_id', 'in', mustSucceed)
        .where('error', 'is not', null)
        .orderBy('id')
        .execute();
      return rows.map((row) => ({ webhookId: row.webhook_id, topic: row.topic, error: row.error! }));
    },
    async addShop(shop) {
      const registered = await registerShop(services.database.db, shop);
      return {
        accountId: registered.shop.account_id,
        auth: `Basic ${Buffer.from(`${registered.appId}:${registered.apiKey}`).toString('base64')}`,
      };
    },
    async close() {
      await workers?.close();
      await app.close();
    },
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests inspect JSON
export async function getJson(baseUrl: string, path: string, auth: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${baseUrl}${path}`, { headers: { Authorization: auth } });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** The Doorstep order made from a Shopify order (its first video line), once the webhook was processed. */
export function videoOrderOf(app: ShopifyTestApp, shop: string, shopifyOrderId: number): Promise<string> {
  return eventually(
    async () =>
      (
        await app.services.database.db
          .selectFrom('shopify_order_links')
          .select('order_id')
          .where('shop', '=', shop)
          .where('shopify_order_id', '=', String(shopifyOrderId))
          .orderBy('line_item_id')
          .executeTakeFirst()
      )?.order_id,
    15_000,
    'the video order',
  );
}

/** Sends orders/create for a new Shopify order with one video line for bob@example.com, and expects it accepted. */
export async function placeOneLineOrder(
  app: ShopifyTestApp,
  shop: string,
): Promise<{ shopifyOrderId: number; lineItemId: number }> {
  const shopifyOrderId = fakeShopifyId();
  const lineItemId = fakeShopifyId();
  const sent = await app.webhook(
    shop,
    'orders/create',
    orderPayload({ id: shopifyOrderId, lines: [{ id: lineItemId, recipientEmail: 'bob@example.com' }] }),
  );
  expect(sent.status).toBe(200);
  return { shopifyOrderId, lineItemId };
}

/** Sends fulfillments/create for a Shopify order's line items: a new fulfillment (fresh id) updated now, unless given. */
export function sendFulfillmentCreated(
  app: ShopifyTestApp,
  shop: string,
  fulfillment: Omit<Parameters<typeof fulfillmentPayload>[0], 'id' | 'updatedAt'> & { id?: number; updatedAt?: string },
): ReturnType<ShopifyTestApp['webhook']> {
  return app.webhook(
    shop,
    'fulfillments/create',
    fulfillmentPayload({ id: fakeShopifyId(), updatedAt: new Date().toISOString(), ...fulfillment }),
  );
}

/** Sends fulfillment_events/create: a new event (fresh id) on a fulfillment of a Shopify order. */
export function sendFulfillmentEvent(
  app: ShopifyTestApp,
  shop: string,
  event: Omit<Parameters<typeof fulfillmentEventPayload>[0], 'id'>,
): ReturnType<ShopifyTestApp['webhook']> {
  return app.webhook(shop, 'fulfillment_events/create', fulfillmentEventPayload({ id: fakeShopifyId(), ...event }));
}

/** Processes every webhook the shop was sent once more, oldest first, as a replay (a replay must change nothing). */
export async function replayEveryWebhook(app: ShopifyTestApp, shop: string): Promise<void> {
  const receipts = await app.services.database.db
    .selectFrom('webhook_receipts')
    .select('webhook_id')
    .where('shop', '=', shop)
    .orderBy('id')
    .execute();
  for (const r of receipts) await app.shopify.processing.process(r.webhook_id, { replay: true });
}

/**
 * The app with Shopify's side faked as a local HTTP server speaking its wire format (OAuth, token
 * exchange, token refresh, the Admin API and billing), for the install, auth and billing flows.
 */
export async function startShopifyTestAppWithFakeShopify(
  options: Parameters<typeof startShopifyTestApp>[0] = {},
): Promise<{
  app: ShopifyTestApp;
  fake: FakeShopify;
  close(): Promise<void>;
}> {
  const fake = await startFakeShopify(API_KEY, SECRET);
  routeShopifyRequestsTo(fake.baseUrl);
  const app = await startShopifyTestApp({ ...options, fake });
  return {
    app,
    fake,
    async close() {
      await app.close();
      await fake.close();
    },
  };
}

/**
 * The file's app and fake Shopify: started before its tests, stopped after them;
 * `use` receives them to assign to the file's own variables.
 */
export function shopifyTestAppForFile(
  use: (started: { app: ShopifyTestApp; fake: FakeShopify }) => void,
  options: Parameters<typeof startShopifyTestApp>[0] = {},
): void {
  forFile(
    () => startShopifyTestAppWithFakeShopify(options),
    use,
    (started) => started.close(),
  );
}
