import { sql } from 'kysely';
import { findAccount } from '../../accounts/accounts.ts';
import type { Db } from '../../db/database.ts';
import { formatTimestamp } from '../../orders/serializer.ts';
import type { ShopRow } from '../shops.ts';
import { stageCondition } from './stage-sql.ts';

export const HOME_PERIOD_DAYS = 30;

/** The shop's own test gift is the merchant's rehearsal, not a shopper's gift: Home's figures leave it out. */
const notTestGift = sql<boolean>`not exists (select 1 from shopify_test_gifts t where t.order_id = orders.id)`;

/**
 * GET /shopify/api/home: the last 30 days at a glance. Counts are of orders created in the period
 * (delivered, sent, viewed so far; needs attention = the stage now); the median runs over orders
 * sent in the period that were delivered first, from delivery to send, in whole seconds. The shop's
 * test gift (setup guide) is not counted.
 */
export async function homeJson(db: Db, shop: ShopRow, now: Date) {
  const from = new Date(now.getTime() - HOME_PERIOD_DAYS * 86_400_000);
  const counts = await db
    .selectFrom('orders')
    .select([
      sql<string>`count(*)`.as('video_orders'),
      sql<string>`count(*) filter (where orders.delivered)`.as('delivered'),
      sql<string>`count(*) filter (where orders.sent_at is not null)`.as('sent'),
      sql<string>`count(*) filter (where orders.viewed_at is not null)`.as('viewed'),
      sql<string>`count(*) filter (where ${stageCondition('needs_attention')})`.as('needs_attention'),
    ])
    .where('account_id', '=', shop.account_id)
    .where('deleted_at', 'is', null)
    .where(notTestGift)
    .where('created_at', '>=', from)
    .where('created_at', '<=', now)
    .executeTakeFirstOrThrow();
  const median = await db
    .selectFrom('orders')
    .select(
      sql<
        number | string | null
      >`percentile_cont(0.5) within group (order by extract(epoch from (orders.sent_at - orders.delivered_at)))`.as(
        'seconds',
      ),
    )
    .where('account_id', '=', shop.account_id)
    .where('deleted_at', 'is', null)
    .where(notTestGift)
    .where('sent_at', '>=', from)
    .where('sent_at', '<=', now)
    .where('delivered_at', 'is not', null)
    .where(sql<boolean>`orders.delivered_at <= orders.sent_at`)
    .executeTakeFirst();
  const account = await findAccount(db, shop.account_id);
  const refused = await refusedLines(db, shop.domain, from);
  return {
    shop: { domain: shop.domain, name: account?.name ?? shop.domain },
    period: { from: formatTimestamp(from), to: formatTimestamp(now) },
    counts: {
      video_orders: Number(counts.video_orders),
      delivered: Number(counts.delivered),
      sent: Number(counts.sent),
      viewed: Number(counts.viewed),
      needs_attention: Number(counts.needs_attention),
    },
    median_delivery_to_sent_seconds:
      median?.seconds === null || median?.seconds === undefined ? null : Math.round(Number(median.seconds)),
    refused_lines: refused.map((line) => ({
      shopify_order_id: line.shopify_order_id,
      shopify_order_name: line.shopify_order_name,
      reason: line.reason,
      refused_at: formatTimestamp(line.refused_at),
    })),
  };
}

/** The most the home lists: a shop with more has a pattern to fix, which the newest already show. */
export const REFUSED_LINES_SHOWN = 20;

/**
 * The video line items of the period's Shopify orders that did not become video orders, newest
 * first — except those a later version of the order turned into one (a link exists now).
 */
function refusedLines(db: Db, shop: string, from: Date) {
  return db
    .selectFrom('shopify_refused_lines as r')
    .select(['r.shopify_order_id', 'r.shopify_order_name', 'r.reason', 'r.refused_at'])
    .where('r.shop', '=', shop)
    .where('r.refused_at', '>=', from)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('shopify_order_links as l')
            .select('l.order_id')
            .whereRef('l.shop', '=', 'r.shop')
            .whereRef('l.shopify_order_id', '=', 'r.shopify_order_id')
            .whereRef('l.line_item_id', '=', 'r.line_item_id'),
        ),
      ),
    )
    .orderBy('r.refused_at', 'desc')
    .limit(REFUSED_LINES_SHOWN)
    .execute();
}
