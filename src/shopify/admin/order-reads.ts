import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { OrderRow } from '../../orders/serializer.ts';
import { encodeCursor, newestOrdersPageQuery } from '../../orders/service.ts';
import type { TrackingRow } from '../../tracking/trackings.ts';
import type { SendRow } from '../../notifications/sends.ts';
import { arrivedCount, giftPackages, NOTICE_TYPES, packageState, type PackageState } from '../orders/packages.ts';
import type { OrderStage, StageFacts } from './stage.ts';
import { stageCondition } from './stage-sql.ts';

/**
 * What the admin reads about orders besides the order row: the recipient's sends, the newest
 * upload, the Shopify link and the tracking row. Read-only; each table keeps its one writer.
 */
export interface OrderContext {
  order: OrderRow;
  facts: StageFacts;
  shopifyOrderName: string | null;
  /** The Shopify order's numeric id, for the link to it in the shop's admin. */
  shopifyOrderId: string | null;
  /** The Shopify order's currency, which the price's minor units are of; null: none given (USD). */
  currency: string | null;
  /** The shop's own test gift (setup guide): marked as a test in the admin, left out of Home's figures. */
  testGift: boolean;
  tracking: TrackingRow | null;
  sends: SendRow[];
}

export interface AdminOrderQuery {
  limit: number;
  cursor?: string | undefined;
  stage?: OrderStage | undefined;
  q?: string | undefined;
}

/** Newest first, by the order's insertion sequence (as /v1 pages), filtered by stage and text. */
export async function listOrders(
  db: Db,
  accountId: string,
  query: AdminOrderQuery,
): Promise<{ orders: OrderContext[]; hasMore: boolean; nextCursor: string | null }> {
  let select = newestOrdersPageQuery(db, accountId, query);
  if (query.stage !== undefined) select = select.where(stageCondition(query.stage));
  const q = query.q?.trim();
  if (q) {
    const pattern = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    select = select.where(
      sql<boolean>`(orders.name ilike ${pattern} or orders.email ilike ${pattern}
        or orders.recipient_name ilike ${pattern} or orders.recipient_email ilike ${pattern}
        or exists (select 1 from shopify_order_links l where l.order_id = orders.id and l.shopify_order_name ilike ${pattern}))`,
    );
  }
  const rows = await select.execute();
  const hasMore = rows.length > query.limit;
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    orders: await orderContexts(db, page),
    hasMore,
    nextCursor: hasMore && last ? encodeCursor(last.seq) : null,
  };
}

/** The context of each order, in the given order: five queries for the whole page, none per row. */
export async function orderContexts(db: Db, orders: readonly OrderRow[]): Promise<OrderContext[]> {
  if (orders.length === 0) return [];
  const ids = orders.map((order) => order.id);
  const [sends, videos, links, trackings, testGifts] = await Promise.all([
    db
      .selectFrom('sends')
      .selectAll()
      .where('order_id', 'in', ids)
      .where('kind', '=', 'recipient_video')
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('videos')
      .select(['order_id', 'status', 'failure_reason'])
      .distinctOn('order_id')
      .where('order_id', 'in', ids)
      .orderBy('order_id')
      .orderBy('seq', 'desc')
      .execute(),
    db
      .selectFrom('shopify_order_links')
      .select([
        'order_id',
        'shop',
        'shopify_order_id',
        'line_item_id',
        'gift_line_item_ids',
        'shopify_order_name',
        'notice',
        'currency',
      ])
      .where('order_id', 'in', ids)
      .execute(),
    db.selectFrom('trackings').selectAll().where('order_id', 'in', ids).execute(),
    db.selectFrom('shopify_test_gifts').select('order_id').where('order_id', 'in', ids).execute(),
  ]);
  // The Shopify orders' packages, for "2 of 3 packages delivered" (the shop/order index serves it).
  const shopifyOrderIds = [...new Set(links.map((link) => link.shopify_order_id))];
  const fulfillments =
    shopifyOrderIds.length === 0
      ? []
      : await db
          .selectFrom('shopify_fulfillments')
          .selectAll()
          .where('shop', 'in', [...new Set(links.map((link) => link.shop))])
          .where('shopify_order_id', 'in', shopifyOrderIds)
          .execute();
  return orders.map((order) => {
    const orderSends = sends.filter((send) => send.order_id === order.id);
    const video = videos.find((row) => row.order_id === order.id);
    const link = links.find((row) => row.order_id === order.id);
    const tracking = trackings.find((row) => row.order_id === order.id) ?? null;
    const facts: StageFacts = {
      status: order.status,
      hasRecipient: order.recipient_email !== null || order.recipient_phone !== null,
      videoProcessed: order.video_processed,
      delivered: order.delivered,
      sentAt: order.sent_at,
      viewedAt: order.viewed_at,
      sendTrigger: order.send_trigger,
      sendOn: order.send_on,
      carrier: order.carrier,
      sends: orderSends.map((send) => ({
        channel: send.channel,
        status: send.status,
        lastError: send.last_error,
        updatedAt: send.updated_at,
      })),
      latestVideo: video ? { status: video.status, failureReason: video.failure_reason } : null,
      shopify: link
        ? {
            notice: parseNotice(link.notice),
            packages: packageCounts(
              fulfillments
                .filter((row) => row.shop === link.shop && row.shopify_order_id === link.shopify_order_id)
                .map(packageState),
              link.gift_line_item_ids ?? [link.line_item_id],
            ),
          }
        : null,
      trackingStopped:
        tracking?.stopped_reason === 'expired' || tracking?.stopped_reason === 'returned'
          ? tracking.stopped_reason
          : null,
    };
    return {
      order,
      facts,
      shopifyOrderName: link?.shopify_order_name ?? null,
      shopifyOrderId: link ? String(link.shopify_order_id) : null,
      currency: link?.currency ?? null,
      testGift: testGifts.some((gift) => gift.order_id === order.id),
      tracking,
      sends: orderSends,
    };
  });
}

function packageCounts(packages: PackageState[], giftLineItemIds: readonly string[]) {
  const gift = giftPackages(packages, giftLineItemIds);
  return { total: gift.length, delivered: arrivedCount(gift) };
}

/** `shopify_order_links.notice` is "<timeline type>: <reason>" (order-sync.ts `putNotice`). */
export function parseNotice(notice: string | null): NonNullable<StageFacts['shopify']>['notice'] {
  if (!notice) return null;
  for (const type of NOTICE_TYPES)
    if (notice.startsWith(`${type}:`)) return { type, reason: notice.slice(type.length + 1).trim() };
  return null;
}
