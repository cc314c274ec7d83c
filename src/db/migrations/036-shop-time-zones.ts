import type { Kysely } from 'kysely';

/**
 * Each shop's time zone (Shopify's `shop.ianaTimezone`, issue 28), written by the shopify module: the
 * embedded admin shows dates in the shop's time, as the Shopify admin does, not in the browser's.
 * Read at install; null for shops installed before, which read it the first time the admin asks.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('shops').addColumn('iana_timezone', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('shops').dropColumn('iana_timezone').execute();
}
