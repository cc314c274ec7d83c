import { sql, type Kysely } from 'kysely';

/**
 * Issue 13, webhooks that act on another shop:
 * - `event_id` (X-Shopify-Event-Id): one event is stored once, even when a captured body comes back
 *   with a fresh webhook id. Older receipts have none.
 * - Failed receipts are indexed on their own: the reconciler prunes those of shops that never
 *   installed (30 days, and a cap per shop) without reading the processed ones.
 * - A Shopify order id is global, so the shop an order belongs to is checked by the order id alone
 *   (`shopify_order_links` is keyed by shop first, which does not serve that lookup).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table webhook_receipts add column event_id text`.execute(db);
  await sql`create unique index webhook_receipts_event on webhook_receipts (event_id) where event_id is not null`.execute(
    db,
  );
  await sql`create index webhook_receipts_failed on webhook_receipts (shop, id) where status = 'failed'`.execute(db);
  await sql`create index shopify_order_links_shopify_order on shopify_order_links (shopify_order_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index shopify_order_links_shopify_order`.execute(db);
  await sql`drop index webhook_receipts_failed`.execute(db);
  await sql`drop index webhook_receipts_event`.execute(db);
  await sql`alter table webhook_receipts drop column event_id`.execute(db);
}
