import type { Db } from '../../db/database.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import { exportCustomerData, redactCustomer, redactShop, type ComplianceDeps } from '../compliance/topics.ts';
import { parseShopifyJson } from '../orders/json.ts';
import { shopVideoLineItems } from '../orders/mapping.ts';
import type { ShopOrderLookUp } from '../orders/order-look-up.ts';
import type { ShopifyOrderSync } from '../orders/order-sync.ts';
import {
  customersDataRequest,
  customersRedact,
  shopifyFulfillment,
  shopifyFulfillmentEvent,
  shopifyOrder,
  shopRedact,
  type ShopifyOrder,
} from '../orders/payloads.ts';
import { findShop, markUninstalled, type ShopRow } from '../shops.ts';
import { followShopProfile, shopProfileUpdate } from '../shop-update.ts';
import {
  bindingNeedsShopLookUp,
  linksOfShopifyOrderQuery,
  payloadNamesAnotherShop,
  shopifyOrderIdOf,
  shopOfLinkedOrder,
  type LinkOfShopifyOrder,
} from './webhook-shop-check.ts';
import type { z } from 'zod';

/** Every topic the app subscribes to (shopify.app.toml). */
export const SHOPIFY_TOPICS = [
  'orders/create',
  'orders/updated',
  'orders/cancelled',
  'fulfillments/create',
  'fulfillments/update',
  'fulfillment_events/create',
  'app/uninstalled',
  'shop/update',
  'customers/data_request',
  'customers/redact',
  'shop/redact',
] as const;

export interface ReceiptInput {
  webhookId: string;
  /** X-Shopify-Event-Id, when Shopify sent one. */
  eventId: string | null;
  topic: string;
  shop: string;
  apiVersion: string | null;
  triggeredAt: Date | null;
  rawBody: string;
  receivedAt: Date;
}

/**
 * Records a verified delivery; false when this X-Shopify-Webhook-Id (a retry) or X-Shopify-Event-Id
 * (the same event again, e.g. a captured body resent with a fresh webhook id) was already received.
 */
export async function recordReceipt(db: Db, input: ReceiptInput): Promise<boolean> {
  const row = await db
    .insertInto('webhook_receipts')
    .values({
      webhook_id: input.webhookId,
      event_id: input.eventId,
      topic: input.topic,
      shop: input.shop,
      api_version: input.apiVersion,
      triggered_at: input.triggeredAt,
      raw_body: input.rawBody,
      status: 'received',
      received_at: input.receivedAt,
    })
    // No conflict target: either unique key (webhook id, event id) makes it a duplicate.
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Reconciler hook: receipts still 'received' after `olderThanMs` (their queue job was lost). */
export async function unprocessedWebhooks(
  db: Db,
  options: { now?: Date; olderThanMs?: number; limit?: number } = {},
): Promise<string[]> {
  const now = options.now ?? new Date();
  const rows = await unprocessedWebhooksQuery(
    db,
    new Date(now.getTime() - (options.olderThanMs ?? 60_000)),
    options.limit ?? 500,
  ).execute();
  return rows.map((row) => row.webhook_id);
}

export function unprocessedWebhooksQuery(db: Db, receivedBefore: Date, limit: number) {
  return db
    .selectFrom('webhook_receipts')
    .select('webhook_id')
    .where('status', '=', 'received')
    .where('received_at', '<', receivedBefore)
    .orderBy('received_at')
    .orderBy('id')
    .limit(limit);
}

/**
 * Signed webhooks from shops that never installed (or that were erased) are kept as failed receipts
 * so a `shops add` and a replay can still process them — but not forever, and not without limit:
 * 30 days, and the newest 200 per shop.
 */
export const UNKNOWN_SHOP_RECEIPTS = { retentionDays: 30, perShop: 200 } as const;

/** Reconciler step: forgets failed receipts of unknown shops past the retention or the cap. Returns how many. */
export async function pruneUnknownShopReceipts(db: Db, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - UNKNOWN_SHOP_RECEIPTS.retentionDays * 86_400_000);
  const result = await db
    .with('unknown', (qb) =>
      qb
        .selectFrom('webhook_receipts as r')
        .select(['r.id', 'r.received_at'])
        .select((eb) =>
          eb.fn
            .agg<number>('row_number')
            .over((o) => o.partitionBy('r.shop').orderBy('r.id', 'desc'))
            .as('newest'),
        )
        .where('r.status', '=', 'failed')
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom('shops as s').select('s.domain').whereRef('s.domain', '=', 'r.shop'))),
        ),
    )
    .deleteFrom('webhook_receipts')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('unknown')
        .select('unknown.id')
        .where((w) =>
          w.or([w('unknown.received_at', '<', cutoff), w('unknown.newest', '>', UNKNOWN_SHOP_RECEIPTS.perShop)]),
        ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * The processing job's first step: read the receipt. A read, not a write: the attempt is counted
 * with its outcome (processed, failed, left for a retry), so a webhook costs one commit fewer — an
 * attempt cut short by a crash is not counted.
 */
export function takeReceiptQuery(db: Db, webhookId: string) {
  return db.selectFrom('webhook_receipts').selectAll().where('webhook_id', '=', webhookId);
}

/** What became of one Shopify webhook: at the endpoint (stored, duplicate, rejected), then in processing. */
export type WebhookOutcome = 'stored' | 'duplicate' | 'rejected' | 'processed' | 'skipped' | 'failed' | 'retry';
export type WebhookObserver = (topic: string, outcome: WebhookOutcome) => void;

export interface WebhookProcessingDeps extends ComplianceDeps {
  logger: Logger;
  sync: ShopifyOrderSync;
  /** The header shop's Admin API, asked before a first sight of an order id binds it (bindingNeedsShopLookUp). */
  lookUpOrder: ShopOrderLookUp;
  observe?: WebhookObserver;
}

export type ProcessOutcome = { status: 'processed' | 'skipped'; note?: string };

function parse<S extends z.ZodType>(schema: S, body: unknown, topic: string): z.output<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success)
    throw new ValidationError(
      `The ${topic} payload does not have the documented shape: ${parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.')}: ${i.message}`)
        .join('; ')}`,
    );
  return parsed.data;
}

/**
 * Processes one stored webhook. The use case does not know it runs in a queue (docs/style.md): the job,
 * the replay command and tests all call `process`. A receipt already processed is skipped unless
 * `replay` is set; processing is idempotent either way, so a replay changes nothing that is done.
 */
export class ShopifyWebhookProcessing {
  constructor(private readonly deps: WebhookProcessingDeps) {}

  async process(webhookId: string, options: { replay?: boolean } = {}): Promise<ProcessOutcome> {
    const { db } = this.deps;
    const receipt = await takeReceiptQuery(db, webhookId).executeTakeFirst();
    if (!receipt) throw new NotFoundError(`No webhook receipt with id "${webhookId}".`);
    if (receipt.status === 'processed' && !options.replay) {
      this.deps.observe?.(receipt.topic, 'skipped');
      return { status: 'skipped', note: 'already processed' };
    }
    try {
      const note = await this.dispatch(receipt.topic, receipt.shop, receipt.raw_body, receipt.webhook_id);
      await db
        .updateTable('webhook_receipts')
        .set((eb) => ({
          status: 'processed',
          error: null,
          note: note ?? null,
          processed_at: this.deps.now(),
          attempts: eb('attempts', '+', 1),
        }))
        .where('webhook_id', '=', webhookId)
        .execute();
      this.deps.observe?.(receipt.topic, 'processed');
      return { status: 'processed', ...(note ? { note } : {}) };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // Only a payload we can never process is `failed` (kept for a fix and a replay). A passing
      // fault (database, Redis) leaves it `received`, so after the job's own retries the reconciler
      // hands it over again: a delivery signal is never dropped because PostgreSQL blinked.
      const final =
        error instanceof ValidationError || error instanceof NotFoundError || error instanceof ConflictError;
      await db
        .updateTable('webhook_receipts')
        .set((eb) => ({
          status: final ? 'failed' : 'received',
          error: message.slice(0, 2000),
          attempts: eb('attempts', '+', 1),
        }))
        .where('webhook_id', '=', webhookId)
        .execute();
      this.deps.observe?.(receipt.topic, final ? 'failed' : 'retry');
      throw error;
    }
  }

  /** Returns a note worth keeping on the receipt (e.g. why no video order was created), or undefined. */
  private async dispatch(
    topic: string,
    shopDomain: string,
    rawBody: string,
    webhookId: string,
  ): Promise<string | undefined> {
    const { db, sync, now } = this.deps;
    let body: unknown;
    try {
      body = parseShopifyJson(rawBody);
    } catch {
      throw new ValidationError('The payload is not JSON.');
    }
    // The header's shop is not signed: refuse a payload that names, or is about, another shop.
    const otherShop = payloadNamesAnotherShop(shopDomain, body);
    if (otherShop) throw new ValidationError(`Refused: ${otherShop}.`);
    const shopifyOrderId = shopifyOrderIdOf(topic, body);
    const links = shopifyOrderId ? await linksOfShopifyOrderQuery(db, shopifyOrderId).execute() : [];
    const linkedShop = shopOfLinkedOrder(shopDomain, links);
    if (linkedShop)
      throw new ValidationError(
        `Refused: Shopify order ${shopifyOrderId} belongs to another shop, not the ${shopDomain} of the X-Shopify-Shop-Domain header.`,
      );
    // Compliance topics may arrive after uninstall (shop/redact ~48 h later) and for shops never seen.
    if (topic === 'shop/redact') {
      const payload = parse(shopRedact, body, topic);
      // Sent ~48 h after an uninstall. A shop installed again meanwhile uses the app: erasing it then
      // would refuse its next orders' webhooks and lose their video messages (merchant probe).
      const installed = await findShop(db, payload.shop_domain);
      if (installed && installed.uninstalled_at === null)
        return `not erased: ${payload.shop_domain} has installed Doorstep again since it uninstalled`;
      const result = await redactShop(this.deps, payload.shop_domain, webhookId);
      return `erased ${result.erased} video order(s) and the shop's data`;
    }
    const shop = await findShop(db, shopDomain);
    if (topic === 'customers/redact') {
      const payload = parse(customersRedact, body, topic);
      const result = await redactCustomer(
        this.deps,
        shopDomain,
        { id: payload.customer.id ?? null, email: payload.customer.email },
        payload.orders_to_redact,
      );
      return `erased ${result.erased.length} video order(s)`;
    }
    if (!shop)
      throw new NotFoundError(
        `The shop ${shopDomain} has not installed Doorstep (install it, or run: npm run cli -- shops add ${shopDomain}; then replay this webhook).`,
      );
    switch (topic) {
      case 'customers/data_request': {
        const payload = parse(customersDataRequest, body, topic);
        const id = await exportCustomerData(
          this.deps,
          shop,
          { id: payload.customer.id ?? null, email: payload.customer.email, phone: payload.customer.phone },
          payload.orders_requested,
          payload.data_request?.id ?? null,
        );
        return `export ${id} is ready at GET /v1/shopify/data-exports/${id}`;
      }
      case 'orders/create':
      case 'orders/updated': {
        const order = parse(shopifyOrder, body, topic);
        if (order.cancelled_at) {
          await sync.cancelShopifyOrder(
            shop,
            order.id,
            'the Shopify order was cancelled',
            shopVideoLineItems(order, shop).length > 0,
          );
          return undefined;
        }
        await this.confirmOrderOfShop(shop, order, body, links);
        const outcome = await sync.createVideoOrders(shop, order, links);
        return outcome.problems.length > 0 ? outcome.problems.join('\n') : undefined;
      }
      case 'orders/cancelled': {
        // The whole order when it reads as one (Shopify sends it whole): only one with video lines is
        // remembered if its orders/create has not come yet; one that does not read is remembered anyway.
        const whole = shopifyOrder.safeParse(body);
        const id = whole.success ? whole.data.id : parse(shopifyOrder.pick({ id: true }), body, topic).id;
        const notes = await sync.cancelShopifyOrder(
          shop,
          id,
          'the Shopify order was cancelled',
          whole.success ? shopVideoLineItems(whole.data, shop).length > 0 : true,
        );
        return notes.length > 0 ? notes.join('\n') : undefined;
      }
      case 'fulfillments/create':
      case 'fulfillments/update': {
        const fulfillment = parse(shopifyFulfillment, body, topic);
        const { stale } = await sync.recordFulfillment(shop, fulfillment);
        return stale
          ? `stale: a version of fulfillment ${fulfillment.id} at least as new was already applied`
          : undefined;
      }
      case 'fulfillment_events/create': {
        const event = parse(shopifyFulfillmentEvent, body, topic);
        await sync.recordFulfillmentEvent(shop, event);
        return undefined;
      }
      case 'app/uninstalled':
        await markUninstalled(db, shop.domain, now());
        return undefined;
      case 'shop/update':
        return followShopProfile(db, shop, parse(shopProfileUpdate, body, topic));
      default:
        return `topic ${topic} is not handled`;
    }
  }
  /**
   * The header is not signed: before this payload makes the order's first links in the shop, the
   * shop must be shown to have the order — by the payload itself, or by its Admin API. A shop whose
   * API does not know the order is refused (`failed`, with the reason); Shopify not answering, or a
   * stored token that cannot be used now, leaves the receipt `received` for a retry (held, not
   * refused: a genuine webhook must never be refused because a replay came first). A shop that never
   * gave us a token (`shops add`, a development shop) has no API to ask: its header is believed.
   * Shops that uninstalled make no links, so they are not asked.
   */
  private async confirmOrderOfShop(
    shop: ShopRow,
    order: ShopifyOrder,
    body: unknown,
    links: readonly LinkOfShopifyOrder[],
  ): Promise<void> {
    if (!shop.active) return;
    const videoLines = shopVideoLineItems(order, shop).length;
    if (!bindingNeedsShopLookUp({ headerShop: shop.domain, body, links, videoLines })) return;
    const answer = await this.deps.lookUpOrder(shop, order.id);
    if (answer === 'not-found')
      throw new ValidationError(
        `Refused: the Admin API of ${shop.domain} does not know Shopify order ${order.id}, so this payload is not that shop's (Shopify signs the body, not the X-Shopify-Shop-Domain header).`,
      );
  }
}
