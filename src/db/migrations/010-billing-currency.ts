import { sql, type Kysely } from 'kysely';

/**
 * Shopify billing fixes (docs/shopify.md, "Billing"):
 * - at most one `pending` subscription per shop, across processes: two web processes opening the
 *   billing page or subscribing at once must not leave two plans to approve (the merchant approves
 *   one, charges would look at the other). Older duplicates are ended as `expired` first: the newest
 *   pending one is the one the page shows;
 * - pending charges by `updated_at`: the reconciler takes the least recently tried first;
 * - `shopify_order_links.currency`: the Shopify order's currency (written by the shopify module),
 *   so billing charges only USD orders (a price in another currency's minor units is not USD
 *   cents). Null on links made before: taken as USD.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`update shopify_subscriptions s set status = 'expired', ended_at = now(), updated_at = now()
    where s.status = 'pending' and exists (
      select 1 from shopify_subscriptions newer
      where newer.shop = s.shop and newer.status = 'pending'
        and (newer.created_at, newer.id) > (s.created_at, s.id))`.execute(db);
  await sql`create unique index shopify_subscriptions_one_pending on shopify_subscriptions (shop) where status = 'pending'`.execute(
    db,
  );
  await db.schema.alterTable('shopify_order_links').addColumn('currency', 'text').execute();
  await sql`create index shopify_usage_charges_pending_tried on shopify_usage_charges (updated_at) where status = 'pending'`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('shopify_order_links').dropColumn('currency').execute();
  await sql`drop index shopify_usage_charges_pending_tried`.execute(db);
  await sql`drop index shopify_subscriptions_one_pending`.execute(db);
}
