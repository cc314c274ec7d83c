import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { ConflictError, GoneError, NotFoundError } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import { recordTimeline } from '../../orders/timeline.ts';
import type { OrderRow } from '../../orders/serializer.ts';
import type { OrderService } from '../../orders/service.ts';
import {
  giftChange,
  giftOf,
  type Gift,
  type GiftChange,
  lineTitles,
  lineWords,
  type LineTitles,
  orderCurrency,
  packageLineQuantities,
  orderToVideoOrder,
  removedByOrderEdit,
  trackingNumbersOf,
  shopVideoLineItems,
  videoLineWords,
  videoLinePrice,
} from './mapping.ts';
import type { TrackingObservation } from '../../tracking/observation.ts';
import { eventObservation, isObservableEventStatus, shopifyTime } from './fulfillment-events.ts';
import {
  isLastOfTheGift,
  isStaleFulfillment,
  isStaleUpdate,
  packageState,
  planPackages,
  type Notice,
  type PackageState,
} from './packages.ts';
import type { ShopifyFulfillment, ShopifyFulfillmentEvent, ShopifyOrder } from './payloads.ts';
import { findShop, type ShopRow } from '../shops.ts';
import { normalizeTrackingNumber } from '../../carriers/tracking-number.ts';
import type { LinkOfShopifyOrder } from '../intake/webhook-shop-check.ts';

export interface ShopifyOrderSyncDeps {
  db: Db;
  orders: OrderService;
  logger: Logger;
  now: () => Date;
  /** SHOPIFY_MAX_VIDEO_LINES_PER_ORDER (src/shopify/config.ts). */
  maxVideoLinesPerOrder: number;
  /**
   * Tracking's way in for a free observation (TrackingPoller.observe, wired in src/app.ts): records it
   * on the order's package when the package tracked is one of `trackingNumbers`. Absent: fulfillment
   * events other than `delivered` are stored and not fed.
   */
  observeTracking?: ObserveTracking;
}

export type ObserveTracking = (
  orderId: string,
  trackingNumbers: readonly string[],
  observation: TrackingObservation,
) => Promise<unknown>;

export interface CreateOutcome {
  created: string[];
  existing: string[];
  /** Video line items that could not become orders, with the reason (kept on the receipt). */
  problems: string[];
}

/** What the fulfillment-event paths read of a `fulfillment_events/create` payload. */
type FulfillmentEventFacts = Pick<
  ShopifyFulfillmentEvent,
  'fulfillment_id' | 'order_id' | 'status' | 'happened_at' | 'created_at'
> &
  Partial<Pick<ShopifyFulfillmentEvent, 'estimated_delivery_at'>>;

/**
 * Keeps Doorstep orders in step with a Shopify order. Every order change goes through OrderService
 * (source 'shopify'); this module owns only the link and package tables. Idempotent throughout:
 * a replayed or duplicated webhook changes nothing.
 */
export class ShopifyOrderSync {
  constructor(private readonly deps: ShopifyOrderSyncDeps) {}

  /**
   * orders/create (and orders/updated): one video order per video line item, created once.
   * `links`: the order's links as just read (the webhook's trust check reads them anyway).
   */
  async createVideoOrders(
    shop: ShopRow,
    order: ShopifyOrder,
    links: readonly LinkOfShopifyOrder[],
  ): Promise<CreateOutcome> {
    const { db, orders } = this.deps;
    const outcome: CreateOutcome = { created: [], existing: [], problems: [] };
    if (order.cancelled_at) return outcome;
    const edited = await this.applyOrderEdits(shop, order, links, outcome);
    // Each line's package-plan inputs, known without another read.
    const known: KnownLine[] = [];
    const items = shopVideoLineItems(order, shop);
    // One order may not fan out without limit (each video order e-mails a record link): the first
    // lines, in the order Shopify lists them, are taken; the rest are refused and said so.
    const limit = this.deps.maxVideoLinesPerOrder;
    for (const [index, item] of items.entries())
      if (index >= limit)
        await this.refuseLine(
          shop,
          order,
          item.id,
          `${videoLineWords(item)} (${index + 1} of ${items.length}): refused, the order has ${items.length} video lines and at most ${limit} are taken (SHOPIFY_MAX_VIDEO_LINES_PER_ORDER)`,
          outcome,
        );
    for (const item of items.slice(0, limit)) {
      const link = links.find((candidate) => candidate.shop === shop.domain && candidate.line_item_id === item.id);
      if (link) {
        known.push({
          lineItemId: item.id,
          giftLineItemIds: link.gift_line_item_ids ?? [item.id],
          notice: link.notice,
          order: null,
        });
        // Links made before the name was kept learn it from the next payload (the admin searches it).
        if (link.shopify_order_name === null && order.name?.trim())
          await db
            .updateTable('shopify_order_links')
            .set({ shopify_order_name: order.name.trim() })
            .where('shop', '=', shop.domain)
            .where('shopify_order_id', '=', order.id)
            .where('line_item_id', '=', item.id)
            .execute();
        outcome.existing.push(link.order_id);
        continue;
      }
      if (!shop.active) {
        await this.refuseLine(
          shop,
          order,
          item.id,
          `${videoLineWords(item)}: the shop had uninstalled Doorstep; no new video orders are created`,
          outcome,
        );
        continue;
      }
      const mapped = orderToVideoOrder(order, item, {
        defaultSendMethod: shop.default_send_method,
        timeZone: shop.iana_timezone,
      });
      if (!mapped.ok) {
        await this.refuseLine(shop, order, item.id, mapped.reason, outcome);
        continue;
      }
      // The idempotency key makes concurrent deliveries (orders/create racing orders/updated, a
      // retry racing the reconciler) create one order: OrderService serializes on it. No link was
      // found, so the key is new unless a crash came between an earlier create and its link.
      const idempotencyKey = `shopify:${shop.domain}:${order.id}:${item.id}`;
      const gift = giftOf(order, item, shop.gift_packages);
      const writeLink = (dbOrTrx: Db, orderId: string) =>
        dbOrTrx
          .insertInto('shopify_order_links')
          .values({
            shop: shop.domain,
            shopify_order_id: order.id,
            line_item_id: item.id,
            order_id: orderId,
            account_id: shop.account_id,
            customer_id: order.customer?.id ?? null,
            customer_email: mapped.order.email,
            shopify_order_name: order.name?.trim() || null,
            currency: orderCurrency(order),
            gift_line_item_ids: JSON.stringify(gift.lineItemIds),
            gift_quantities: JSON.stringify(gift.quantities),
            gift_line_titles: JSON.stringify(gift.titles),
            gift_updated_at: payloadUpdatedAt(order),
            created_at: this.deps.now(),
          })
          .onConflict((oc) => oc.columns(['shop', 'shopify_order_id', 'line_item_id']).doNothing())
          .execute();
      let result;
      try {
        result = await orders.create(shop.account_id, mapped.order, {
          idempotencyKey,
          keyIsNew: true,
          source: 'shopify',
          // The link commits with its order: no order without its link, and one commit, not two.
          alongside: async (trx, created) => {
            // Under the Shopify order's lock, as a cancellation's look for links is: one of the two
            // sees the other (rolled back here when the cancellation came first).
            if (await cancelledBeforeSeen(trx, shop.domain, order.id)) throw new CancelledBeforeSeenError();
            await writeLink(trx, created.id);
          },
          ...(mapped.awaitingRecipient ? { awaitingRecipient: { reason: mapped.awaitingRecipient } } : {}),
        });
      } catch (error) {
        if (error instanceof CancelledBeforeSeenError) {
          outcome.problems.push(CANCELLED_FIRST);
          continue;
        }
        // Its video order was made, then deleted through the API before the link was written.
        if (error instanceof GoneError) {
          outcome.problems.push(`line item ${item.id}: its video order was deleted`);
          continue;
        }
        // Same key, different body: the order was created from an earlier version of the payload.
        if (!(error instanceof ConflictError)) throw error;
        const key = await db
          .selectFrom('idempotency_keys')
          .select('order_id')
          .where('account_id', '=', shop.account_id)
          .where('key', '=', idempotencyKey)
          .executeTakeFirstOrThrow();
        result = { order: await orders.get(shop.account_id, key.order_id), replayed: true };
      }
      // An earlier create answered (its link was never written, or a racing delivery is writing it).
      if (result.replayed) await writeLink(db, result.order.id);
      else known.push({ lineItemId: item.id, giftLineItemIds: gift.lineItemIds, notice: null, order: result.order });
      // The sender's record-link e-mail follows from the order's own `order.created` event.
      (result.replayed ? outcome.existing : outcome.created).push(result.order.id);
    }
    // Fulfillments may have arrived before the order: apply what we already know.
    if (!edited && outcome.existing.length === known.filter((line) => line.order === null).length)
      await this.syncKnownLines(shop, order.id, known);
    else await this.syncShopifyOrder(shop, order.id);
    return outcome;
  }

  /**
   * Order edits, as orders/updated tells them. A video line an edit removed (`current_quantity` 0)
   * cancels its video order — unless the video already went, which the receipt says. Every other
   * link's gift follows the newest payload: what an edit removed or reduced is no longer waited for,
   * what it added or swapped in is (the video must not go before it, nor wait for what never ships).
   * Returns whether a gift changed: then the caller plans from the stored links. Replays change
   * nothing: the cancel is a no-op the second time, and the gift already matches.
   */
  private async applyOrderEdits(
    shop: ShopRow,
    order: ShopifyOrder,
    links: readonly LinkOfShopifyOrder[],
    outcome: CreateOutcome,
  ): Promise<boolean> {
    const removedLines = order.line_items.filter(removedByOrderEdit).map((line) => line.id);
    const updatedAt = payloadUpdatedAt(order);
    let giftChanged = false;
    for (const link of links) {
      if (link.shop !== shop.domain) continue;
      // A link's own line is its video message (whatever the shop's video products are now).
      if (removedLines.includes(link.line_item_id)) {
        await this.cancelRemovedVideoLine(link, lineTitles(order, [link.line_item_id]), outcome);
        continue;
      }
      // A payload whose age cannot be told, or no newer than the one the gift came from, changes nothing.
      if (updatedAt === null || isStaleUpdate(link.gift_updated_at, updatedAt)) continue;
      const next = this.giftOfLink(shop, order, link);
      // The usual orders/updated: no edit, or one this link's gift already follows. No write, no read.
      if (
        next !== null &&
        giftChange(storedGift(link), next) &&
        (await this.followGift(shop, order, updatedAt, link, next))
      )
        giftChanged = true;
      // After the gift: followGift reads the link's payload time, which a new price moves on.
      await this.followPrice(shop, order, updatedAt, link);
    }
    return giftChanged;
  }

  /**
   * An order edit or a refund that took part of the video line (`current_quantity` below `quantity`)
   * lowers what the shopper paid for it: an order not sent yet is priced again (through OrderService,
   * so the timeline says from what to what), and billed on it (Shopify probe: 2 → 1 kept the price of
   * 2). The usual orders/updated, with nothing taken, reads nothing. A sent video keeps its price: its
   * charge was made when it went.
   */
  private async followPrice(shop: ShopRow, order: ShopifyOrder, updatedAt: Date, link: LinkOfShopifyOrder) {
    const item = order.line_items.find((line) => line.id === link.line_item_id);
    if (!item || item.current_quantity === null || item.current_quantity === item.quantity) return;
    const price = videoLinePrice(order, item);
    if (price === null) return;
    const videoOrder = await this.deps.orders.get(shop.account_id, link.order_id).catch((error: unknown) => {
      if (error instanceof NotFoundError) return null; // deleted through the API
      throw error;
    });
    if (!videoOrder || videoOrder.sent_at !== null || videoOrder.status === 'cancelled' || videoOrder.price === price)
      return;
    try {
      await this.deps.orders.update(shop.account_id, link.order_id, { price }, 'shopify');
    } catch (error) {
      // Cancelled or sent since it was read: its price stays as it was.
      if (!(error instanceof ConflictError)) throw error;
      return;
    }
    // An older payload processed after this one must not put the price back.
    await this.deps.db
      .updateTable('shopify_order_links')
      .set({ gift_updated_at: updatedAt })
      .where('shop', '=', link.shop)
      .where('shopify_order_id', '=', order.id)
      .where('line_item_id', '=', link.line_item_id)
      .where((eb) => eb.or([eb('gift_updated_at', 'is', null), eb('gift_updated_at', '<', updatedAt)]))
      .execute();
  }

  private async cancelRemovedVideoLine(
    link: { line_item_id: string; order_id: string },
    titles: LineTitles,
    outcome: CreateOutcome,
  ): Promise<void> {
    try {
      await this.deps.orders.cancel(
        link.order_id,
        'shopify',
        `an order edit removed the video message (${lineWords(link.line_item_id, titles)}) from the order`,
      );
    } catch (error) {
      // Already sent (ConflictError) or deleted through the API: nothing left to stop.
      if (!(error instanceof ConflictError || error instanceof NotFoundError)) throw error;
      outcome.problems.push(`line item ${link.line_item_id}: removed by an order edit; ${(error as Error).message}`);
    }
  }

  /**
   * The gift this payload gives a link's video line, or null when it is not to be followed: a link
   * made before gifts were kept (its gift is its own line, as it always was), or a video line the
   * payload does not carry.
   */
  private giftOfLink(
    shop: ShopRow,
    order: ShopifyOrder,
    link: { line_item_id: string; gift_line_item_ids: string[] | null },
  ): Gift | null {
    if (link.gift_line_item_ids === null) return null;
    const videoItem =
      order.line_items.find((line) => line.id === link.line_item_id) ??
      shopVideoLineItems(order, shop).find((line) => line.id === link.line_item_id);
    return videoItem ? giftOf(order, videoItem, shop.gift_packages) : null;
  }

  /**
   * Moves one link's gift to `next`, with a timeline entry saying what changed — unless the order is
   * finished (nothing waits any more) or the link already follows a payload as new as this one.
   */
  private async followGift(
    shop: ShopRow,
    order: ShopifyOrder,
    updatedAt: Date,
    link: LinkOfShopifyOrder,
    next: Gift,
  ): Promise<boolean> {
    // Read before the transaction: on PGlite a read on another connection would wait for it.
    const videoOrder = await this.deps.orders.get(shop.account_id, link.order_id).catch((error: unknown) => {
      if (error instanceof NotFoundError) return null; // deleted through the API
      throw error;
    });
    if (!videoOrder || videoOrder.status === 'cancelled' || videoOrder.status === 'delivered') return false;
    return this.deps.db.transaction().execute(async (trx) => {
      // Locked, so two orders/updated of one order processed at once apply in updated_at order.
      const locked = await orderLinkQuery(trx, shop.domain, order.id, link.line_item_id)
        .select(['gift_line_item_ids', 'gift_quantities', 'gift_updated_at'])
        .forUpdate()
        .executeTakeFirst();
      if (!locked || isStaleUpdate(locked.gift_updated_at, updatedAt)) return false;
      const change = giftChange(storedGift(locked), next);
      if (!change) return false;
      await trx
        .updateTable('shopify_order_links')
        .set({
          gift_line_item_ids: JSON.stringify(next.lineItemIds),
          gift_quantities: JSON.stringify(next.quantities),
          gift_line_titles: JSON.stringify(next.titles),
          gift_updated_at: updatedAt,
        })
        .where('shop', '=', shop.domain)
        .where('shopify_order_id', '=', order.id)
        .where('line_item_id', '=', link.line_item_id)
        .execute();
      await recordTimeline(
        trx,
        videoOrder,
        'shopify',
        [
          {
            type: 'delivery.gift_changed',
            // A line the edit took away is still in the payload (its current_quantity 0), with its title.
            data: {
              reason: giftChangeReason(
                change,
                lineTitles(
                  order,
                  order.line_items.map((line) => line.id),
                ),
              ),
            },
          },
        ],
        this.deps.now(),
      );
      return true;
    });
  }

  /**
   * The sync step of orders/create and orders/updated when every line's link is known from this
   * webhook (issue 11: the common case). With no fulfillment stored for the Shopify order — one
   * indexed read, after the links committed, so a fulfillment committed meanwhile is seen here or
   * sees the links in its own sync — a line's plan depends only on its gift items: no shipment to
   * set, nothing delivered, at most the notice that nothing ships, written once. Links of other line
   * items were planned the same way when they were made. Anything else takes the full sync.
   */
  private async syncKnownLines(shop: ShopRow, shopifyOrderId: string, lines: readonly KnownLine[]): Promise<void> {
    if (lines.length === 0) return this.syncShopifyOrder(shop, shopifyOrderId);
    const fulfillments = await fulfillmentsOfOrderQuery(this.deps.db, shop.domain, shopifyOrderId).execute();
    if (fulfillments.length > 0) return this.syncShopifyOrder(shop, shopifyOrderId);
    const settings = { fallbackDelivered: shop.fallback_delivered, carrierAliases: shop.carrier_aliases };
    const plans = lines.map((line) => ({ line, plan: planPackages([], line.giftLineItemIds, settings) }));
    const changes = plans.filter(({ line, plan }) => noticeText(plan.notice) !== line.notice);
    // An order of an earlier webhook is not read here: should its notice differ, the full sync decides.
    if (
      plans.some(({ plan }) => plan.shipment.kind !== 'keep' || plan.deliver !== null) ||
      changes.some(({ line }) => line.order === null)
    )
      return this.syncShopifyOrder(shop, shopifyOrderId);
    for (const { line, plan } of changes)
      await this.putNotice(
        { shop: shop.domain, shopify_order_id: shopifyOrderId, line_item_id: line.lineItemId, notice: line.notice },
        line.order!,
        plan.notice,
      );
  }

  /** fulfillments/create, fulfillments/update: store the newest version of the package, then sync. */
  async recordFulfillment(shop: ShopRow, fulfillment: ShopifyFulfillment): Promise<{ stale: boolean }> {
    const now = this.deps.now();
    const updatedAt = new Date(fulfillment.updated_at);
    const delivered = fulfillment.shipment_status === 'delivered' ? updatedAt : null;
    let storedEvent: StoredEvent | null = null;
    const stale = await writeFulfillment(this.deps.db, async (trx) => {
      const stored = await trx
        .selectFrom('shopify_fulfillments')
        .select([
          'shopify_updated_at',
          'tracking_numbers',
          'status',
          'delivered_at',
          'event_status',
          'event_happened_at',
          'event_estimated_delivery_at',
        ])
        .where('shop', '=', shop.domain)
        .where('fulfillment_id', '=', fulfillment.id)
        .forUpdate()
        .executeTakeFirst();
      if (stored?.event_happened_at) storedEvent = stored;
      if (
        stored &&
        isStaleFulfillment(
          { updatedAt: stored.shopify_updated_at, trackingNumbers: stored.tracking_numbers, status: stored.status },
          { updatedAt, trackingNumbers: trackingNumbersOf(fulfillment), status: fulfillment.status },
        )
      )
        return true;
      const values = {
        shopify_order_id: fulfillment.order_id,
        status: fulfillment.status,
        line_item_ids: JSON.stringify(fulfillment.line_items.map((item) => item.id)),
        line_quantities: JSON.stringify(packageLineQuantities(fulfillment)),
        tracking_company: fulfillment.tracking_company,
        tracking_numbers: JSON.stringify(trackingNumbersOf(fulfillment)),
        shipment_status: fulfillment.shipment_status,
        shopify_created_at: new Date(fulfillment.created_at),
        shopify_updated_at: updatedAt,
        updated_at: now,
      };
      if (stored) {
        // Delivered is sticky: a later version never un-delivers a package.
        await trx
          .updateTable('shopify_fulfillments')
          .set({ ...values, delivered_at: stored.delivered_at ?? delivered })
          .where('shop', '=', shop.domain)
          .where('fulfillment_id', '=', fulfillment.id)
          .execute();
      } else {
        const inserted = await trx
          .insertInto('shopify_fulfillments')
          .values({ shop: shop.domain, fulfillment_id: fulfillment.id, ...values, delivered_at: delivered })
          .onConflict((oc) => oc.columns(['shop', 'fulfillment_id']).doNothing())
          .returning('fulfillment_id')
          .executeTakeFirst();
        if (!inserted) return LOST_INSERT_RACE;
      }
      return false;
    });
    if (!stale) await this.syncShopifyOrder(shop, fulfillment.order_id);
    // Its events came first: now that the package has its numbers (and, after the sync, is tracked),
    // the newest one is fed to tracking. Re-feeding the same observation changes nothing.
    if (!stale && storedEvent)
      await this.feedObservation(shop, fulfillment.order_id, trackingNumbersOf(fulfillment), storedEvent);
    return { stale };
  }

  /**
   * fulfillment_events/create: Shopify's own tracking. `delivered` follows the package rules; the
   * other documented statuses and `estimated_delivery_at` are free observations for the tracking
   * schedule (recordEventObservation); an undocumented status is ignored.
   */
  async recordFulfillmentEvent(shop: ShopRow, event: FulfillmentEventFacts): Promise<void> {
    if (event.status !== 'delivered') return this.recordEventObservation(shop, event);
    const now = this.deps.now();
    const at = new Date(event.happened_at ?? event.created_at ?? now.toISOString());
    await writeFulfillment(this.deps.db, async (trx) => {
      const stored = await trx
        .selectFrom('shopify_fulfillments')
        .select(['delivered_at'])
        .where('shop', '=', shop.domain)
        .where('fulfillment_id', '=', event.fulfillment_id)
        .forUpdate()
        .executeTakeFirst();
      if (stored) {
        if (stored.delivered_at === null) {
          await trx
            .updateTable('shopify_fulfillments')
            .set({ delivered_at: at, shipment_status: 'delivered', updated_at: now })
            .where('shop', '=', shop.domain)
            .where('fulfillment_id', '=', event.fulfillment_id)
            .execute();
        }
        return;
      }
      // The event came before its fulfillment: remember the delivery; the fulfillment fills the rest.
      const inserted = await trx
        .insertInto('shopify_fulfillments')
        .values({
          shop: shop.domain,
          fulfillment_id: event.fulfillment_id,
          shopify_order_id: event.order_id,
          shipment_status: 'delivered',
          delivered_at: at,
          line_item_ids: null,
          updated_at: now,
        })
        .onConflict((oc) => oc.columns(['shop', 'fulfillment_id']).doNothing())
        .returning('fulfillment_id')
        .executeTakeFirst();
      if (!inserted) return LOST_INSERT_RACE;
    });
    await this.syncShopifyOrder(shop, event.order_id);
  }

  /**
   * The carrier delivered the number a Shopify gift's order tracks (TrackingPoller's delivery gate,
   * wired in src/app.ts). A gift in several boxes is tracked one box at a time, newest first: when the
   * box delivered is not the last of the gift, it is kept as arrived
   * (`shopify_fulfillments.carrier_delivered_numbers`), and the order's plan moves tracking to the next
   * box and says so on the timeline (`delivery.package_arrived`) — the video waits. Answers whether
   * the delivery delivers the order: true for the last box, and for an order that is no Shopify gift
   * or a number no gift package carries.
   */
  async carrierDelivered(orderId: string, trackingNumber: string): Promise<boolean> {
    const { db } = this.deps;
    const link = await db
      .selectFrom('shopify_order_links')
      .selectAll()
      .where('order_id', '=', orderId)
      .executeTakeFirst();
    if (!link) return true;
    const giftLineItemIds = link.gift_line_item_ids ?? [link.line_item_id];
    const number = normalizeTrackingNumber(trackingNumber);
    const held = await db.transaction().execute(async (trx) => {
      const rows = await fulfillmentsOfOrderQuery(trx, link.shop, link.shopify_order_id).forUpdate().execute();
      const packages = rows.map(packageState);
      if (isLastOfTheGift(packages, giftLineItemIds, link.gift_quantities ?? {}, number)) return null;
      const carrying = rows.filter(
        (row) =>
          row.tracking_numbers.some((n) => normalizeTrackingNumber(n) === number) &&
          !row.carrier_delivered_numbers.includes(number),
      );
      for (const row of carrying)
        await trx
          .updateTable('shopify_fulfillments')
          .set({
            carrier_delivered_numbers: JSON.stringify([...row.carrier_delivered_numbers, number]),
            updated_at: this.deps.now(),
          })
          .where('shop', '=', row.shop)
          .where('fulfillment_id', '=', row.fulfillment_id)
          .execute();
      // Its plan (below) tracks the next box and says, once, how many of the gift have arrived.
      return true;
    });
    if (held === null) return true;
    const shop = await findShop(db, link.shop);
    if (shop) await this.syncShopifyOrder(shop, link.shopify_order_id);
    return false;
  }

  /**
   * A fulfillment event other than `delivered`. The newest event of the package is kept on its
   * fulfillment row — created if the event comes first, as `delivered` does — so an event that comes
   * before its fulfillment (no tracking numbers yet) or before tracking starts is fed once the
   * fulfillment arrives (recordFulfillment). Then it is fed to each video order of the Shopify order
   * whose tracked package is one of this fulfillment's numbers. Never delivers anything.
   */
  private async recordEventObservation(shop: ShopRow, event: FulfillmentEventFacts): Promise<void> {
    if (!isObservableEventStatus(event.status)) return;
    const now = this.deps.now();
    const at = shopifyTime(event.happened_at) ?? shopifyTime(event.created_at) ?? now;
    const estimate = shopifyTime(event.estimated_delivery_at);
    const incoming = eventObservation({ status: event.status, at, estimatedDeliveryAt: estimate });
    if (!incoming) return;
    const written = await writeFulfillment(this.deps.db, async (trx) => {
      const stored = await trx
        .selectFrom('shopify_fulfillments')
        .select(['tracking_numbers', 'event_status', 'event_happened_at', 'event_estimated_delivery_at'])
        .where('shop', '=', shop.domain)
        .where('fulfillment_id', '=', event.fulfillment_id)
        .forUpdate()
        .executeTakeFirst();
      const merged = newestEvent(stored ?? null, { status: incoming.status ? event.status : null, at, estimate });
      const values = {
        event_status: merged.event_status,
        event_happened_at: merged.event_happened_at,
        event_estimated_delivery_at: merged.event_estimated_delivery_at,
      };
      if (stored) {
        await trx
          .updateTable('shopify_fulfillments')
          .set(values)
          .where('shop', '=', shop.domain)
          .where('fulfillment_id', '=', event.fulfillment_id)
          .execute();
        return { trackingNumbers: stored.tracking_numbers, event: merged };
      }
      // The event came before its fulfillment: keep it; the fulfillment fills the rest and feeds it.
      const inserted = await trx
        .insertInto('shopify_fulfillments')
        .values({
          shop: shop.domain,
          fulfillment_id: event.fulfillment_id,
          shopify_order_id: event.order_id,
          line_item_ids: null,
          updated_at: now,
          ...values,
        })
        .onConflict((oc) => oc.columns(['shop', 'fulfillment_id']).doNothing())
        .returning('fulfillment_id')
        .executeTakeFirst();
      if (!inserted) return LOST_INSERT_RACE;
      return { trackingNumbers: [] as string[], event: merged };
    });
    await this.feedObservation(shop, event.order_id, written.trackingNumbers, written.event);
  }

  /** Feeds a package's newest event to tracking, for each video order of its Shopify order. */
  private async feedObservation(
    shop: ShopRow,
    shopifyOrderId: string,
    trackingNumbers: readonly string[],
    event: StoredEvent,
  ): Promise<void> {
    const observe = this.deps.observeTracking;
    if (!observe || trackingNumbers.length === 0 || event.event_happened_at === null) return;
    const observation = eventObservation({
      status: event.event_status,
      at: event.event_happened_at,
      estimatedDeliveryAt: event.event_estimated_delivery_at,
    });
    if (!observation) return;
    const links = await linksOfOrderQuery(this.deps.db, shop.domain, shopifyOrderId).execute();
    // Tracking decides per order whether the package it tracks is this one (its number).
    for (const link of links) await observe(link.order_id, trackingNumbers, observation);
  }

  /**
   * Applies the package plan to each video order of the Shopify order. Webhooks for one order can be
   * processed at the same time (several workers); each writes its fulfillment first, then plans from
   * all of them. A plan made from a set that changed meanwhile is made again, so the last writer's
   * plan — made from every fulfillment — is the one that stands.
   */
  async syncShopifyOrder(shop: ShopRow, shopifyOrderId: string): Promise<void> {
    for (let round = 0; round < 5; round++) {
      const planned = await this.applyPackagePlan(shop, shopifyOrderId);
      if (planned === null || planned === (await this.fulfillmentsFingerprint(shop, shopifyOrderId))) return;
    }
    this.deps.logger.warn(
      { shop: shop.domain, shopifyOrderId },
      'fulfillments kept changing while planning; the next webhook or replay settles them',
    );
  }

  private async fulfillmentsFingerprint(shop: ShopRow, shopifyOrderId: string): Promise<string> {
    const rows = await fulfillmentsOfOrderQuery(this.deps.db, shop.domain, shopifyOrderId).execute();
    return fingerprint(rows);
  }

  /** Returns the fingerprint of the fulfillments the plan was made from, or null when there is nothing to plan. */
  private async applyPackagePlan(shop: ShopRow, shopifyOrderId: string): Promise<string | null> {
    const { db, orders } = this.deps;
    // Line items in a fixed order, so every run and replay writes the timelines in the same order.
    const links = await linksOfOrderQuery(db, shop.domain, shopifyOrderId).execute();
    if (links.length === 0) return null;
    const rows = await fulfillmentsOfOrderQuery(db, shop.domain, shopifyOrderId).execute();
    const packages: PackageState[] = rows.map(packageState);
    for (const link of links) {
      let order: OrderRow;
      try {
        order = await orders.get(link.account_id, link.order_id);
      } catch (error) {
        if (error instanceof NotFoundError) continue; // deleted through the API
        throw error;
      }
      if (order.status === 'cancelled' || order.status === 'delivered') continue;
      const plan = planPackages(
        packages,
        link.gift_line_item_ids ?? [link.line_item_id],
        { fallbackDelivered: shop.fallback_delivered, carrierAliases: shop.carrier_aliases },
        link.gift_quantities ?? {},
        order.tracking_number,
        link.gift_line_titles,
      );

      try {
        if (
          plan.shipment.kind === 'set' &&
          (order.carrier !== plan.shipment.carrier || order.tracking_number !== plan.shipment.trackingNumber)
        ) {
          await orders.update(
            link.account_id,
            order.id,
            { carrier: plan.shipment.carrier, tracking_number: plan.shipment.trackingNumber },
            'shopify',
          );
        } else if (plan.shipment.kind === 'clear' && order.carrier !== null) {
          await orders.update(link.account_id, order.id, { carrier: null, tracking_number: null }, 'shopify');
        }
      } catch (error) {
        // Delivered or cancelled since we read it (another signal won the race): nothing to change.
        if (error instanceof ConflictError) continue;
        throw error;
      }
      await this.putNotice(link, order, plan.notice);
      if (plan.deliver) {
        await orders.markDelivered(order.id, {
          at: plan.deliver.at,
          source: 'shopify',
          detail: { shopify_fulfillment_ids: plan.deliver.fulfillmentIds, via: 'shopify shipment_status' },
        });
      }
    }
    return fingerprint(rows);
  }

  /**
   * Rule 3 (no silent non-send): why an order waits on Shopify, or cannot deliver on its own, goes
   * on its timeline — once per distinct reason, so replays do not repeat it.
   */
  private async putNotice(
    link: { shop: string; shopify_order_id: string; line_item_id: string; notice: string | null },
    order: OrderRow,
    notice: Notice | null,
  ): Promise<void> {
    const text = noticeText(notice);
    if (text === link.notice) return;
    await this.deps.db.transaction().execute(async (trx) => {
      const claimed = await trx
        .updateTable('shopify_order_links')
        .set({ notice: text })
        .where('shop', '=', link.shop)
        .where('shopify_order_id', '=', link.shopify_order_id)
        .where('line_item_id', '=', link.line_item_id)
        .where((eb) => (link.notice === null ? eb('notice', 'is', null) : eb('notice', '=', link.notice)))
        .executeTakeFirst();
      if (notice && Number(claimed.numUpdatedRows) > 0)
        await recordTimeline(
          trx,
          order,
          'shopify',
          [{ type: notice.type, data: { reason: notice.reason } }],
          this.deps.now(),
        );
    });
  }

  /**
   * A video line that cannot become a video order: said on the webhook's receipt, and kept for the
   * admin's home with its Shopify order's name (rule 3: no silent non-send; the reasons name fields,
   * never their values). The newest reason stands when a later version is refused again.
   */
  private async refuseLine(
    shop: ShopRow,
    order: ShopifyOrder,
    lineItemId: string,
    reason: string,
    outcome: CreateOutcome,
  ): Promise<void> {
    outcome.problems.push(reason);
    const row = {
      shop: shop.domain,
      shopify_order_id: order.id,
      line_item_id: lineItemId,
      shopify_order_name: order.name?.trim() || null,
      reason,
      refused_at: this.deps.now(),
    };
    await this.deps.db
      .insertInto('shopify_refused_lines')
      .values(row)
      .onConflict((conflict) =>
        conflict.columns(['shop', 'shopify_order_id', 'line_item_id']).doUpdateSet({
          reason: row.reason,
          shopify_order_name: row.shopify_order_name,
          refused_at: row.refused_at,
        }),
      )
      .execute();
  }

  /**
   * orders/cancelled (or an update with `cancelled_at`): every video order of the Shopify order stops
   * tracking and never sends. A Shopify order that has
   * none yet, but whose payload has video lines (or could not be read for them), is remembered
   * (Shopify's webhooks come in any order), so the orders/create that follows makes no live video
   * order of a cancelled one.
   */
  async cancelShopifyOrder(
    shop: ShopRow,
    shopifyOrderId: string,
    reason: string,
    mayHaveVideoLines: boolean,
  ): Promise<string[]> {
    // A fixed order: the notes end up on the receipt, and a replay must write the same text.
    const links = await this.deps.db.transaction().execute(async (trx) => {
      await lockShopifyOrder(trx, shop.domain, shopifyOrderId);
      const found = await linksOfOrderQuery(trx, shop.domain, shopifyOrderId).execute();
      if (found.length === 0 && mayHaveVideoLines)
        await trx
          .insertInto('shopify_cancelled_orders')
          .values({ shop: shop.domain, shopify_order_id: shopifyOrderId, cancelled_at: this.deps.now() })
          .onConflict((conflict) => conflict.doNothing())
          .execute();
      return found;
    });
    const notes: string[] = [];
    if (links.length === 0 && mayHaveVideoLines)
      notes.push(
        'no video order of this Shopify order yet: the cancellation is kept, so a later orders/create makes none',
      );
    for (const link of links) {
      try {
        await this.deps.orders.cancel(link.order_id, 'shopify', reason);
      } catch (error) {
        // Already sent (ConflictError) or deleted through the API: nothing left to stop.
        if (!(error instanceof ConflictError || error instanceof NotFoundError)) throw error;
        notes.push(`${link.order_id}: ${(error as Error).message}`);
      }
    }
    return notes;
  }
}

/** A create rolled back: the Shopify order was cancelled before it was seen (shopify_cancelled_orders). */
class CancelledBeforeSeenError extends Error {
  override name = 'CancelledBeforeSeenError';
}

/**
 * One Shopify order's create and cancellation, one at a time (a transaction-scoped advisory lock: the
 * create's link does not exist yet to be locked).
 */
async function lockShopifyOrder(trx: Db, shop: string, shopifyOrderId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`shopify-order:${shop}:${shopifyOrderId}`}))`.execute(trx);
}

/** Under the Shopify order's lock: was it cancelled before its video orders were made? */
async function cancelledBeforeSeen(trx: Db, shop: string, shopifyOrderId: string): Promise<boolean> {
  await lockShopifyOrder(trx, shop, shopifyOrderId);
  const row = await trx
    .selectFrom('shopify_cancelled_orders')
    .select('shop')
    .where('shop', '=', shop)
    .where('shopify_order_id', '=', shopifyOrderId)
    .executeTakeFirst();
  return row !== undefined;
}

const CANCELLED_FIRST =
  'the Shopify order was cancelled before Doorstep saw it (orders/cancelled came first): no video order is made';

const LOST_INSERT_RACE = Symbol('lost the insert race');

/**
 * A fulfillment's row is written by whichever of its webhooks (fulfillments/create, /update,
 * fulfillment_events/create) is processed first, and several can be processed at once. `SELECT … FOR
 * UPDATE` locks nothing while the row does not exist yet, so two of them can both decide to insert: the
 * second insert waits for the first to commit and then inserts nothing (`on conflict do nothing`), and
 * `write` says so with LOST_INSERT_RACE. Its transaction is then run again, sees the row, and takes
 * the update path — with the staleness check, as if it had come second. A duplicate-key error never
 * reaches the webhook job.
 */
async function writeFulfillment<T>(db: Db, write: (trx: Db) => Promise<T | typeof LOST_INSERT_RACE>): Promise<T> {
  // Twice is enough: once the row exists it is never deleted while its shop is installed, so the
  // second run finds it. A third is only for safety against a redaction in between.
  for (let attempt = 0; attempt < 3; attempt++) {
    const result = await db.transaction().execute(write);
    if (result !== LOST_INSERT_RACE) return result;
  }
  throw new Error('a Shopify fulfillment row kept disappearing between insert attempts');
}

/** The newest fulfillment event kept on a package's row (migration 041). */
interface StoredEvent {
  event_status: string | null;
  event_happened_at: Date | null;
  event_estimated_delivery_at: Date | null;
}

/**
 * What a package's row keeps of its events once `incoming` is added: the status of the newest event
 * that had one, and the newest estimate. Events arrive out of order; an older one only fills a gap.
 */
function newestEvent(
  stored: StoredEvent | null,
  incoming: { status: string | null; at: Date; estimate: Date | null },
): StoredEvent {
  const storedAt = stored?.event_happened_at ?? null;
  const newer = storedAt === null || incoming.at.getTime() >= storedAt.getTime();
  const pick = <T>(mine: T | null, theirs: T | null): T | null => (newer ? (mine ?? theirs) : (theirs ?? mine));
  return {
    event_status: pick(incoming.status, stored?.event_status ?? null),
    event_happened_at: newer ? incoming.at : storedAt,
    event_estimated_delivery_at: pick(incoming.estimate, stored?.event_estimated_delivery_at ?? null),
  };
}

/** A link's gift as stored (callers skip links made before gifts were kept). */
function storedGift(link: { gift_line_item_ids: string[] | null; gift_quantities: Record<string, number> | null }): {
  lineItemIds: readonly string[];
  quantities: Record<string, number> | null;
} {
  return { lineItemIds: link.gift_line_item_ids ?? [], quantities: link.gift_quantities };
}

/** The timeline's words for what an order edit changed in a gift. */
function giftChangeReason(change: GiftChange, titles: LineTitles): string {
  const lines = (ids: readonly string[]) => ids.map((id) => lineWords(id, titles)).join(', ');
  const parts = [
    ...(change.removed.length > 0 ? [`removed ${lines(change.removed)}`] : []),
    ...(change.added.length > 0 ? [`added ${lines(change.added)}`] : []),
    ...change.resized.map((line) => `took ${lineWords(line.id, titles)} from ${line.from} to ${line.to}`),
  ];
  return `the gift changed with the Shopify order (${parts.join('; ')}): the video waits for what the order ships now`;
}

/** The payload's `updated_at`, which orders one version of a Shopify order against another. */
function payloadUpdatedAt(order: Pick<ShopifyOrder, 'updated_at'>): Date | null {
  const at = order.updated_at ? new Date(order.updated_at) : null;
  return at && !Number.isNaN(at.getTime()) ? at : null;
}

/** What a link stores of its notice (`shopify_order_links.notice`). */
function noticeText(notice: Notice | null): string | null {
  return notice ? `${notice.type}: ${notice.reason}` : null;
}

/** A line's package-plan inputs; `order` is set when this webhook has just created it. */
interface KnownLine {
  lineItemId: string;
  giftLineItemIds: readonly string[];
  notice: string | null;
  order: OrderRow | null;
}

function fingerprint(
  rows: ReadonlyArray<{
    fulfillment_id: string;
    updated_at: Date | null;
    shipment_status: string | null;
    status: string | null;
    carrier_delivered_numbers: readonly string[];
  }>,
): string {
  return JSON.stringify(
    rows.map((row) => [
      row.fulfillment_id,
      row.updated_at?.getTime() ?? null,
      row.shipment_status,
      row.status,
      row.carrier_delivered_numbers,
    ]),
  );
}

/*
 * Every order and fulfillment webhook reads these; exported so that
 * test/db/hot-query-plans.test.ts explains the text run here.
 */

/** One line item's link; select the columns you need. */
export function orderLinkQuery(db: Db, shop: string, shopifyOrderId: string, lineItemId: string) {
  return db
    .selectFrom('shopify_order_links')
    .where('shop', '=', shop)
    .where('shopify_order_id', '=', shopifyOrderId)
    .where('line_item_id', '=', lineItemId);
}

/** A Shopify order's links in a fixed order (line item id), so every run and replay writes the same. */
export function linksOfOrderQuery(db: Db, shop: string, shopifyOrderId: string) {
  return db
    .selectFrom('shopify_order_links')
    .selectAll()
    .where('shop', '=', shop)
    .where('shopify_order_id', '=', shopifyOrderId)
    .orderBy('line_item_id');
}

export function fulfillmentsOfOrderQuery(db: Db, shop: string, shopifyOrderId: string) {
  return db
    .selectFrom('shopify_fulfillments')
    .selectAll()
    .where('shop', '=', shop)
    .where('shopify_order_id', '=', shopifyOrderId)
    .orderBy('fulfillment_id');
}
