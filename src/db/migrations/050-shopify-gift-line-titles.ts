import type { Kysely } from 'kysely';

/**
 * The titles of the line items a video message waits for (`shopify_order_links.gift_line_titles`,
 * `{"<line id>": "Scented candle"}`), kept with the gift: the timeline and the admin name a line by
 * its product, not by Shopify's line item id (Shopify probe: "Shopify line item 5940394191085").
 * Null on links made before: those reasons keep the id.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('shopify_order_links').addColumn('gift_line_titles', 'jsonb').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('shopify_order_links').dropColumn('gift_line_titles').execute();
}
