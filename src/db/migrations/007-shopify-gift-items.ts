import type { Kysely } from 'kysely';

/**
 * Which Shopify line items are the gift a video message waits for (docs/shopify.md, "Every video
 * line item reaches a send"). A video sold as a non-shipping add-on is never in a fulfillment, so
 * the link stores the shipped lines its packages are found by; and the shop chooses whether that is
 * every shipped item or only the item the storefront block was added to.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Null on links made before this migration: the video line itself is the gift (as it was).
  await db.schema.alterTable('shopify_order_links').addColumn('gift_line_item_ids', 'jsonb').execute();
  await db.schema
    .alterTable('shops')
    .addColumn('gift_packages', 'text', (c) => c.notNull().defaultTo('all_shipped_items'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('shops').dropColumn('gift_packages').execute();
  await db.schema.alterTable('shopify_order_links').dropColumn('gift_line_item_ids').execute();
}
