import type { Kysely } from 'kysely';

/**
 * Quantities, so that a line shipped in several boxes counts as shipped only once every box has left
 * (docs/shopify.md, "Several packages"). Before, a fulfillment said only which lines it carried: two
 * mugs in two boxes were "shipped" with the first box, and the video could go before the second box
 * arrived.
 * - shopify_fulfillments.line_quantities: how many of each line this package carries.
 * - shopify_order_links.gift_quantities: how many of each gift line must ship.
 * Both `{"<line item id>": quantity}`. Null on rows written before: a line in any package counts as
 * shipped, as it did.
 *
 * And order edits: the gift follows the newest order payload (`docs/shopify.md`, "Order edits").
 * shopify_order_links.gift_updated_at is Shopify's `updated_at` of the payload the gift was taken
 * from; an older payload, processed late, leaves the gift alone.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('shopify_fulfillments').addColumn('line_quantities', 'jsonb').execute();
  await db.schema
    .alterTable('shopify_order_links')
    .addColumn('gift_quantities', 'jsonb')
    .addColumn('gift_updated_at', 'timestamptz')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('shopify_order_links').dropColumn('gift_updated_at').execute();
  await db.schema.alterTable('shopify_order_links').dropColumn('gift_quantities').execute();
  await db.schema.alterTable('shopify_fulfillments').dropColumn('line_quantities').execute();
}
