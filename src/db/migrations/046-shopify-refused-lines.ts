import type { Kysely } from 'kysely';

/**
 * Video line items of a Shopify order that could not become a video order (no usable sender e-mail,
 * an unreadable "Send on", past the per-order limit, the shop uninstalled), written by the shopify
 * module, so the merchant sees each on the admin's home with its reason instead of only on the
 * webhook's receipt. A line that later became a video order (a corrected orders/updated) has a link
 * and is no longer listed (the read joins them; nothing is deleted on the hot create path). Erased with
 * the shop (shop/redact).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('shopify_refused_lines')
    .addColumn('shop', 'text', (column) => column.notNull())
    .addColumn('shopify_order_id', 'text', (column) => column.notNull())
    .addColumn('line_item_id', 'text', (column) => column.notNull())
    .addColumn('shopify_order_name', 'text')
    .addColumn('reason', 'text', (column) => column.notNull())
    .addColumn('refused_at', 'timestamptz', (column) => column.notNull())
    .addPrimaryKeyConstraint('shopify_refused_lines_pkey', ['shop', 'shopify_order_id', 'line_item_id'])
    .execute();
  await db.schema
    .createIndex('shopify_refused_lines_recent')
    .on('shopify_refused_lines')
    .columns(['shop', 'refused_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('shopify_refused_lines').execute();
}
